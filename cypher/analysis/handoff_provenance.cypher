// description: Where a handoff's context came from: the runs it covers, where they ran, and what those provider threads had been handed before.
// param workspace: string — the workspace to read
// param handoffId: string — the handoff to explain
//
// One row per covered run. `handedBefore` are the READY handoffs delivered to the run's
// provider thread up to the run's start: second-hand context the run could build on.
MATCH (h:ContextHandoff {id: $handoffId, workspace: $workspace})-[:COVERS]->(r:Run)
MATCH (h)-[:SOURCE_THREAD]->(s:Thread)
OPTIONAL MATCH (x:ContextTransfer)-[:PRODUCED]->(h)
OPTIONAL MATCH (r)-[:EXECUTED_ON]->(pt:ProviderThread)
RETURN h.kind AS kind, h.strategy AS strategy, x.type AS transferType, s.id AS sourceThread,
       r.ordinal AS run, r.provider AS provider, r.status AS status, pt.id AS ranOn,
       COLLECT {
         MATCH (pt)<-[:DELIVERED_TO]-(earlier:ContextHandoff)
         WHERE earlier.status = 'READY' AND earlier.createdAt <= r.startedAt
         RETURN earlier.id ORDER BY earlier.createdAt
       } AS handedBefore
ORDER BY run
