// Bulk: handoffs with every link an analyst follows: consuming and covered thread, the
// provider threads it came from and went to, the runs it covers, the transfer that
// produced it and the run that consumed it.
UNWIND $rows AS row
MATCH (t:Thread {workspace: $workspace, id: row.props.threadId})
MATCH (src:Thread {workspace: $workspace, id: row.props.sourceThreadId})
CREATE (h:ContextHandoff)
SET h = row.props
CREATE (h)-[:FOR_THREAD]->(t)
CREATE (h)-[:SOURCE_THREAD]->(src)
WITH h, row
CALL (h, row) {
  MATCH (to:ProviderThread {id: row.props.toProviderThreadId, workspace: $workspace})
  CREATE (h)-[:DELIVERED_TO]->(to)
}
CALL (h, row) {
  UNWIND row.props.fromProviderThreadIds AS fromId
  MATCH (from:ProviderThread {id: fromId, workspace: $workspace})
  CREATE (h)-[:FROM_PROVIDER_THREAD]->(from)
}
CALL (h, row) {
  UNWIND row.coveredRunIds AS runId
  MATCH (r:Run {id: runId, workspace: $workspace})
  CREATE (h)-[:COVERS]->(r)
}
CALL (h, row) {
  MATCH (x:ContextTransfer {id: row.props.transferId, workspace: $workspace})
  CREATE (x)-[:PRODUCED]->(h)
}
CALL (h, row) {
  MATCH (r:Run {id: row.props.targetRunId, workspace: $workspace})
  CREATE (r)-[:CONSUMED]->(h)
}
