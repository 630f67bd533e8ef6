// The run of a thread that a run id or a checkpoint id names (a fork's source point), how
// many items it reported, and its item at $itemIndex (a fork at an item; null for none).
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
} AS run,
  COUNT { (r)-[:HAS_ITEM]->(:RunItem) } AS itemCount,
  COLLECT { MATCH (r)-[:HAS_ITEM]->(i:RunItem) WHERE i.seq = $itemIndex RETURN i {.*} }[0] AS item
LIMIT 1
