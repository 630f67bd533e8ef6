// Baseline read: the rows of `thread(id) { runs { ordinal status } providerThreads { id
// coverage { nativeRunOrdinals coveredRunOrdinals missingRunOrdinals } } }` in one query.
// History = runs completed, failed or interrupted; coverage = native runs plus the runs
// in the ranges of READY handoffs about the thread delivered to the provider thread.
MATCH (t:Thread {workspace: $workspace, id: $threadId})
WITH t, COLLECT {
  MATCH (t)-[:HAS_RUN]->(r:Run)
  RETURN r {.ordinal, .status, .providerThreadId} AS run ORDER BY r.ordinal
} AS runs
WITH t, runs, [r IN runs WHERE r.status IN ['COMPLETED', 'FAILED', 'INTERRUPTED']] AS history
RETURN [r IN runs WHERE r.status <> 'ROLLED_BACK' | r {.ordinal, .status}] AS runs,
  COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    WITH pt, COLLECT {
      MATCH (h:ContextHandoff)-[:DELIVERED_TO]->(pt)
      WHERE h.status = 'READY' AND h.sourceThreadId = t.id
      RETURN [h.coveredFrom, h.coveredTo] AS range
    } AS ranges
    WITH pt, [r IN history | {
      ordinal: r.ordinal,
      native: r.providerThreadId = pt.id,
      covered: r.providerThreadId = pt.id
        OR any(range IN ranges WHERE range[0] <= r.ordinal <= range[1])
    }] AS marks
    RETURN {
      id: pt.id,
      nativeRunOrdinals: [m IN marks WHERE m.native | m.ordinal],
      coveredRunOrdinals: [m IN marks WHERE m.covered | m.ordinal],
      missingRunOrdinals: [m IN marks WHERE NOT m.covered | m.ordinal]
    } AS coverage
    ORDER BY pt.createdAt, pt.id
  } AS providerThreads
