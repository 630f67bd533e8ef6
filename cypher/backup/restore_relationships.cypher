// A batch of a snapshot's relationships, between nodes this restore wrote (by key).
UNWIND $rows AS row
MATCH (a:Restoring {restoreKey: row.from}) WHERE a.workspace = $workspace
MATCH (b:Restoring {restoreKey: row.to}) WHERE b.workspace = $workspace
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.props
RETURN count(r) AS created
