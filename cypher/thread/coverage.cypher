// What coverage needs of each thread: which runs are history (the latest run and the
// rolled-back ranges), every provider thread with the ranges it ran natively, and the
// ready handoffs each received (their ranges; no summary text).
UNWIND $ids AS id
MATCH (t:Thread {id: id, workspace: $workspace})
OPTIONAL MATCH (last:Run {workspace: $workspace, threadId: t.id, ordinal: t.lastOrdinal})
RETURN id AS key, {
  thread: t {.*},
  lastRun: CASE WHEN last IS NULL THEN null ELSE last {.*} END,
  providerThreads: COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    RETURN pt {.*} ORDER BY pt.createdAt, pt.id
  },
  handoffs: COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(:ProviderThread)<-[:DELIVERED_TO]-(h:ContextHandoff)
    WHERE h.status = 'READY'
    RETURN h {.id, .threadId, .sourceThreadId, .toProviderThreadId, .coveredFrom, .coveredTo,
              .strategy, .kind, .status, .tokenEstimate, .createdAt, .updatedAt}
    ORDER BY h.createdAt, h.id
  },
  latestCompleted: [], latestStable: [], deltaChains: []
} AS value
