UNWIND $ids AS id
MATCH (:Thread {id: id, workspace: $workspace})-[:FORK|SUBAGENT|SIDE]->(c:Thread)
RETURN id AS key, c {.*} AS value
ORDER BY c.createdAt, c.id
