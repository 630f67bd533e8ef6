// The run of a thread that a run id or a checkpoint id names (a fork's source point).
CALL () {
  MATCH (r:Run {id: $runId, workspace: $workspace})
  WHERE r.threadId = $threadId
  RETURN r
  UNION
  MATCH (:Checkpoint {id: $checkpointId, workspace: $workspace})<-[:HAS_CHECKPOINT]-(r:Run)
  WHERE r.threadId = $threadId
  RETURN r
}
RETURN r {.*,
  checkpoint: COLLECT { MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint) RETURN c {.*} }[0]
} AS run
LIMIT 1
