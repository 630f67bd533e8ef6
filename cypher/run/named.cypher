// The run a run id or a checkpoint id names in the workspace (a fork's source point),
// whichever thread holds it: the fork's rule tells a run of another thread (INVALID_INPUT)
// from none (NOT_FOUND). With how many items it reported, and its item at $itemIndex (a
// fork at an item; null for none).
CALL () {
  MATCH (r:Run {id: $runId, workspace: $workspace})
  RETURN r
  UNION
  MATCH (:Checkpoint {id: $checkpointId, workspace: $workspace})<-[:HAS_CHECKPOINT]-(r:Run)
  RETURN r
}
RETURN r {.*,
  checkpoint: COLLECT { MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint) RETURN c {.*} }[0]
} AS run,
  COUNT { (r)-[:HAS_ITEM]->(:RunItem) } AS itemCount,
  COLLECT { MATCH (r)-[:HAS_ITEM]->(i:RunItem) WHERE i.seq = $itemIndex RETURN i {.*} }[0] AS item
LIMIT 1
