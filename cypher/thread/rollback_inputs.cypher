// What a rollback to $toOrdinal reads besides the thread's state: the live runs after it,
// and the handoffs about the thread that reach past it, with the run that consumed each.
MATCH (t:Thread {id: $threadId, workspace: $workspace})
RETURN
  COLLECT {
    MATCH (r:Run {workspace: $workspace, threadId: t.id})
    WHERE r.ordinal > $toOrdinal AND r.status <> 'ROLLED_BACK'
    RETURN r {.*} ORDER BY r.ordinal
  } AS rolledRuns,
  COLLECT {
    MATCH (h:ContextHandoff)-[:FOR_THREAD]->(t)
    WHERE h.status <> 'SUPERSEDED' AND h.sourceThreadId = t.id AND h.coveredTo > $toOrdinal
    OPTIONAL MATCH (consumer:Run)-[:CONSUMED]->(h)
    RETURN {handoff: h {.*}, consumerOrdinal: consumer.ordinal,
            consumerProviderThreadId: consumer.providerThreadId}
    ORDER BY h.createdAt, h.id
  } AS affected
