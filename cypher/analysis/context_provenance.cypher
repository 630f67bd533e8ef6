// description: Where the context injected into a run came from: each handoff it consumed, its transfer and the runs it covers.
// param workspace: string — the workspace to read
// param runId: string — the run whose context to explain
//
// One row per handoff the run consumed: the transfer that asked for it (if any), the
// thread and runs it summarises, and the provider threads those runs ran on.
MATCH (r:Run {id: $runId, workspace: $workspace})-[:CONSUMED]->(h:ContextHandoff)-[:SOURCE_THREAD]->(s:Thread)
OPTIONAL MATCH (x:ContextTransfer)-[:PRODUCED]->(h)
RETURN h.id AS handoff, h.strategy AS strategy, h.kind AS kind,
       x.type AS transferType, s.id AS sourceThread,
       COLLECT { MATCH (h)-[:COVERS]->(c:Run) RETURN c.ordinal ORDER BY c.ordinal } AS coveredRuns,
       COLLECT { MATCH (h)-[:FROM_PROVIDER_THREAD]->(pt) RETURN pt.id } AS fromProviderThreads
ORDER BY h.createdAt, h.id
