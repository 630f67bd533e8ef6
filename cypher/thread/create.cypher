// A thread; a fork or subagent also gets its lineage edge from the parent.
CREATE (t:Thread)
SET t = $thread, t.version = 0
WITH t
CALL (t) {
  MATCH (p:Thread {id: t.parentId, workspace: t.workspace})
  FOREACH (_ IN CASE WHEN t.relationshipToParent = 'FORK' THEN [1] ELSE [] END |
    CREATE (p)-[:FORK {sourceRunOrdinal: $sourceRunOrdinal}]->(t))
  FOREACH (_ IN CASE WHEN t.relationshipToParent = 'SUBAGENT' THEN [1] ELSE [] END |
    CREATE (p)-[:SUBAGENT {sourceRunOrdinal: $sourceRunOrdinal}]->(t))
}
RETURN t {.*} AS thread
