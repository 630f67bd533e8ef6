UNWIND $ids AS id
MATCH (:Run {id: id, workspace: $workspace})-[:HAS_ITEM]->(i:RunItem)
RETURN id AS key, i {.*} AS value
ORDER BY i.seq
