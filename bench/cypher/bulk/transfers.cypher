// Bulk: context transfers with their threads, source and base points, the run that
// spawned a subagent, the provider thread that received it and the run that consumed it.
UNWIND $rows AS row
MATCH (src:Thread {workspace: $workspace, id: row.props.sourceThreadId})
MATCH (dst:Thread {workspace: $workspace, id: row.props.targetThreadId})
CREATE (x:ContextTransfer)
SET x = row.props
CREATE (x)-[:FROM_THREAD]->(src)
CREATE (x)-[:TO_THREAD]->(dst)
WITH x, row
CALL (x, row) {
  MATCH (r:Run {id: row.sourceRunId, workspace: $workspace})
  CREATE (x)-[:SOURCE_RUN]->(r)
}
CALL (x, row) {
  MATCH (c:Checkpoint {id: row.sourceCheckpointId, workspace: $workspace})
  CREATE (x)-[:SOURCE_CHECKPOINT]->(c)
}
CALL (x, row) {
  MATCH (r:Run {id: row.baseRunId, workspace: $workspace})
  CREATE (x)-[:BASE_RUN]->(r)
}
CALL (x, row) {
  MATCH (r:Run {id: row.props.spawnedByRunId, workspace: $workspace})
  CREATE (r)-[:SPAWNED]->(x)
}
CALL (x, row) {
  MATCH (pt:ProviderThread {id: row.props.resolvedProviderThreadId, workspace: $workspace})
  CREATE (x)-[:RESOLVED_TO]->(pt)
}
CALL (x, row) {
  MATCH (r:Run {id: row.props.consumedByRunId, workspace: $workspace})
  CREATE (r)-[:CONSUMED_TRANSFER]->(x)
}
