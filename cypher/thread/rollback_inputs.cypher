// What a rollback to $toOrdinal reads besides the thread's state: the live runs after it;
// the live handoffs for the thread it may take, with the run that consumed each (its
// target run): those about the thread that reach past it, and those a run after it
// consumed (a fork's inherited context, a delta about earlier runs); the merge-backs and
// subagent results a live run after it consumed, with whether their handoff is still live,
// and the subagent results still pending, with the run of this thread that spawned their
// subagent.
MATCH (t:Thread {id: $threadId, workspace: $workspace})
WITH t, COLLECT {
    MATCH (r:Run {workspace: $workspace, threadId: t.id})
    WHERE r.ordinal > $toOrdinal AND r.status <> 'ROLLED_BACK'
    RETURN r {.*} ORDER BY r.ordinal
  } AS rolledRuns
WITH t, rolledRuns, [r IN rolledRuns | r.id] AS rolledIds
RETURN
  rolledRuns,
  COLLECT {
    MATCH (h:ContextHandoff)-[:FOR_THREAD]->(t)
    WHERE h.status <> 'SUPERSEDED'
      AND ((h.sourceThreadId = t.id AND h.coveredTo > $toOrdinal) OR h.targetRunId IN rolledIds)
    OPTIONAL MATCH (consumer:Run {workspace: $workspace, id: h.targetRunId})
    RETURN {handoff: h {.*}, consumerOrdinal: consumer.ordinal,
            consumerProviderThreadId: consumer.providerThreadId}
    ORDER BY h.createdAt, h.id
  } AS affected,
  COLLECT {
    MATCH (x:ContextTransfer)-[:TO_THREAD]->(t)
    WHERE x.type IN ['MERGE_BACK', 'SUBAGENT_RESULT'] AND x.status = 'CONSUMED'
    MATCH (consumer:Run {workspace: $workspace, id: x.consumedByRunId})
    WHERE consumer.ordinal > $toOrdinal AND consumer.status <> 'ROLLED_BACK'
    OPTIONAL MATCH (h:ContextHandoff {id: x.handoffId, workspace: $workspace})
    RETURN {transfer: x {.*}, handoffLive: h IS NOT NULL AND h.status <> 'SUPERSEDED'}
    ORDER BY x.createdAt, x.id
  } AS delivered,
  COLLECT {
    MATCH (x:ContextTransfer)-[:TO_THREAD]->(t)
    WHERE x.type = 'SUBAGENT_RESULT' AND x.status = 'PENDING'
    MATCH (spawn:ContextTransfer)-[:FROM_THREAD]->(t)
    WHERE spawn.type = 'SUBAGENT_SPAWN' AND spawn.targetThreadId = x.sourceThreadId
    RETURN {transferId: x.id, spawnedByRunId: spawn.spawnedByRunId}
    ORDER BY x.createdAt, x.id
  } AS pendingResults
