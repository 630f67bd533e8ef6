UNWIND $ids AS id
MATCH (:Run {id: id, workspace: $workspace})-[:CONSUMED]->(h:ContextHandoff)
RETURN id AS key, h {.*} AS value
ORDER BY h.createdAt, h.id
