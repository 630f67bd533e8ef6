// Bulk: the lineage edge from a fork's or subagent's parent, with the source run ordinal.
UNWIND $rows AS row
MATCH (p:Thread {workspace: $workspace, id: row.parentId})
MATCH (c:Thread {workspace: $workspace, id: row.childId})
FOREACH (_ IN CASE WHEN row.relationship = 'FORK' THEN [1] ELSE [] END |
  CREATE (p)-[:FORK {sourceRunOrdinal: row.sourceRunOrdinal}]->(c))
FOREACH (_ IN CASE WHEN row.relationship = 'SUBAGENT' THEN [1] ELSE [] END |
  CREATE (p)-[:SUBAGENT {sourceRunOrdinal: row.sourceRunOrdinal}]->(c))
