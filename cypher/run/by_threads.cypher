// Temporal properties leave as ISO strings (docs/MODEL.md, "Reading times").
UNWIND $ids AS id
MATCH (:Thread {id: id, workspace: $workspace})-[:HAS_RUN]->(r:Run)
OPTIONAL MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint)
RETURN id AS key, r {.*, startedAt: toString(r.startedAt), completedAt: toString(r.completedAt),
  checkpoint: CASE WHEN c IS NULL THEN null ELSE c {.*, createdAt: toString(c.createdAt)} END,
  consumedHandoffIds: COLLECT { MATCH (r)-[:CONSUMED]->(h:ContextHandoff) RETURN h.id }} AS value
ORDER BY r.ordinal
