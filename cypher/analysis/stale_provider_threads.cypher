// description: Provider threads gone stale, divergent or failed, and why.
// param workspace: string — the workspace to read
//
// `signals` are the staleness signals that retired the thread (SEMANTICS "Staleness
// signals"): recorded when it became STALE, RESUME_FAILED for a failed start,
// ROLLED_BACK_OR_DIVERGENT for a rollback it could not follow. `failureReason` is what the
// caller reported; `rolledBackRuns` the rolled-back runs it ran natively and
// `supersededHandoffs` the handoffs it received that a rollback or failure superseded.
MATCH (pt:ProviderThread {workspace: $workspace})
USING INDEX pt:ProviderThread(workspace, status)
WHERE pt.status IN ['STALE', 'DIVERGENT', 'FAILED']
MATCH (t:Thread)-[:HAS_PROVIDER_THREAD]->(pt)
RETURN t.id AS thread, pt.id AS providerThread, pt.provider AS provider, pt.status AS status,
       CASE pt.status
         WHEN 'STALE' THEN coalesce(pt.staleSignals, [])
         WHEN 'FAILED' THEN ['RESUME_FAILED']
         ELSE ['ROLLED_BACK_OR_DIVERGENT']
       END AS signals,
       pt.failureReason AS failureReason,
       COLLECT {
         MATCH (r:Run)-[:EXECUTED_ON]->(pt) WHERE r.status = 'ROLLED_BACK'
         RETURN r.ordinal ORDER BY r.ordinal
       } AS rolledBackRuns,
       COLLECT {
         MATCH (h:ContextHandoff)-[:DELIVERED_TO]->(pt) WHERE h.status = 'SUPERSEDED'
         RETURN h.id ORDER BY h.createdAt
       } AS supersededHandoffs,
       COUNT { MATCH (r:Run)-[:EXECUTED_ON]->(pt) WHERE r.status <> 'ROLLED_BACK' } AS nativeRuns,
       pt.lastUsedAt AS lastUsedAt
ORDER BY thread, lastUsedAt
