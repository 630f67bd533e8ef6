// A new run: its thread, the provider thread it executes on and the handoffs it consumes.
MATCH (t:Thread {id: $run.threadId, workspace: $workspace})
MATCH (pt:ProviderThread {id: $run.providerThreadId, workspace: $workspace})
CREATE (r:Run)
SET r = $run, r.workspace = $workspace
CREATE (t)-[:HAS_RUN]->(r)
CREATE (r)-[:EXECUTED_ON]->(pt)
SET t.lastOrdinal = $run.ordinal, t.cleanContextRequested = false,
    pt.lastUsedAt = $run.startedAt
WITH r
CALL (r) {
  UNWIND $handoffIds AS handoffId
  MATCH (h:ContextHandoff {id: handoffId, workspace: $workspace})
  CREATE (r)-[:CONSUMED]->(h)
  SET h.targetRunId = r.id
}
RETURN r.id AS id
