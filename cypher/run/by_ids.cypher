UNWIND $ids AS id
MATCH (r:Run {id: id, workspace: $workspace})
OPTIONAL MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint)
RETURN id AS key, r {.*, checkpoint: CASE WHEN c IS NULL THEN null ELSE c {.*} END,
  consumedHandoffIds: COLLECT { MATCH (r)-[:CONSUMED]->(h:ContextHandoff) RETURN h.id }} AS value
