// reportStartFailure: the run now executes on another provider thread.
MATCH (r:Run {id: $runId, workspace: $workspace})-[old:EXECUTED_ON]->(:ProviderThread)
MATCH (pt:ProviderThread {id: $providerThreadId, workspace: $workspace})
DELETE old
CREATE (r)-[:EXECUTED_ON]->(pt)
SET r.providerThreadId = pt.id, r.status = $status, pt.lastUsedAt = $at
WITH r
CALL (r) {
  UNWIND $handoffIds AS handoffId
  MATCH (h:ContextHandoff {id: handoffId, workspace: $workspace})
  CREATE (r)-[:CONSUMED]->(h)
  SET h.targetRunId = r.id
}
RETURN r.id AS id
