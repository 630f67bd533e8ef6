// New handoffs with every link an analyst follows: the thread that consumes it,
// the thread whose runs it covers (and those runs), where it came from and went to.
UNWIND $handoffs AS h
MATCH (t:Thread {id: h.threadId, workspace: $workspace})
MATCH (src:Thread {id: h.sourceThreadId, workspace: $workspace})
CREATE (n:ContextHandoff)
SET n = h, n.workspace = $workspace
CREATE (n)-[:FOR_THREAD]->(t)
CREATE (n)-[:SOURCE_THREAD]->(src)
WITH n, h, src
CALL (n, h) {
  MATCH (to:ProviderThread {id: h.toProviderThreadId, workspace: $workspace})
  CREATE (n)-[:DELIVERED_TO]->(to)
}
CALL (n, h) {
  UNWIND h.fromProviderThreadIds AS fromId
  MATCH (from:ProviderThread {id: fromId, workspace: $workspace})
  CREATE (n)-[:FROM_PROVIDER_THREAD]->(from)
}
CALL (n, h, src) {
  MATCH (src)-[:HAS_RUN]->(r:Run)
  WHERE h.coveredFrom <= r.ordinal <= h.coveredTo AND r.status <> 'ROLLED_BACK'
  CREATE (n)-[:COVERS]->(r)
}
CALL (n, h) {
  MATCH (x:ContextTransfer {id: h.transferId, workspace: $workspace})
  CREATE (x)-[:PRODUCED]->(n)
}
RETURN n.id AS id
