UNWIND $ids AS id
MATCH (:Thread {id: id, workspace: $workspace})-[:HAS_RUN]->(r:Run)
OPTIONAL MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint)
RETURN id AS key, r {.*, checkpoint: CASE WHEN c IS NULL THEN null ELSE c {.*} END,
  consumedHandoffIds: COLLECT { MATCH (r)-[:CONSUMED]->(h:ContextHandoff) RETURN h.id }} AS value
ORDER BY r.ordinal
