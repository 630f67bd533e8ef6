// The state decisions on a thread read (graph.models.ThreadState), for the thread and,
// with $related, its ancestors and the sources of transfers waiting for it. Bounded
// whatever the thread's length: runs appear only as the latest ones and as ranges kept
// on threads and provider threads. Commands take the thread's lock (thread/lock) first.
MATCH (main:Thread {id: $threadId, workspace: $workspace})
OPTIONAL MATCH (busy:Run {workspace: $workspace, threadId: main.id, ordinal: main.lastOrdinal})
WITH main, CASE WHEN $related THEN
    COLLECT { MATCH (a:Thread)-[:FORK|SUBAGENT*1..100]->(main) RETURN a.id } +
    COLLECT {
      MATCH (x:ContextTransfer)-[:TO_THREAD]->(main)
      WHERE x.status = 'PENDING' OR (busy IS NOT NULL AND x.consumedByRunId = busy.id)
      RETURN x.sourceThreadId
    } + $extra
  ELSE [] END AS relatedIds
UNWIND [main.id] + [id IN relatedIds WHERE id <> main.id] AS threadId
WITH DISTINCT threadId
MATCH (t:Thread {id: threadId, workspace: $workspace})
OPTIONAL MATCH (last:Run {workspace: $workspace, threadId: t.id, ordinal: t.lastOrdinal})
RETURN t {.*} AS thread,
  CASE WHEN last IS NULL THEN null ELSE last {.*,
    checkpoint: COLLECT { MATCH (last)-[:HAS_CHECKPOINT]->(c:Checkpoint) RETURN c {.*} }[0],
    consumedHandoffIds: COLLECT { MATCH (last)-[:CONSUMED]->(h:ContextHandoff) RETURN h.id }
  } END AS lastRun,
  COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    RETURN pt {.*} ORDER BY pt.createdAt, pt.id
  } AS providerThreads,
  COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    WHERE size(coalesce(pt.nativeRanges, [])) > 0
    MATCH (r:Run {workspace: $workspace, threadId: t.id, ordinal: pt.nativeRanges[-1]})
    RETURN [pt.id, coalesce(r.deltaChain, 0)]
  } AS deltaChains,
  COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    WHERE NOT pt.status IN ['STALE', 'FAILED', 'DIVERGENT']
    MATCH (h:ContextHandoff)-[:DELIVERED_TO]->(pt)
    WHERE h.status IN ['READY', 'PENDING']
    RETURN h {.*} ORDER BY h.createdAt, h.id
  } AS handoffs,
  COLLECT {
    MATCH (x:ContextTransfer)-[:TO_THREAD]->(t)
    WHERE x.status = 'PENDING' OR x.type IN ['FORK', 'SUBAGENT_SPAWN']
       OR (last IS NOT NULL AND x.consumedByRunId = last.id)
    RETURN x {.*} ORDER BY x.createdAt, x.id
  } AS transfers,
  COLLECT {
    MATCH (x:ContextTransfer)-[:FROM_THREAD]->(t)
    WHERE x.status = 'PENDING'
    RETURN x {.*} ORDER BY x.createdAt, x.id
  } AS outgoingTransfers,
  COLLECT {
    MATCH (r:Run {workspace: $workspace, threadId: t.id})
    WHERE r.status = 'COMPLETED'
    RETURN r {.*,
      checkpoint: COLLECT { MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint) RETURN c {.*} }[0]
    } ORDER BY r.ordinal DESC LIMIT 1
  } AS latestCompleted,
  COLLECT {
    MATCH (r:Run {workspace: $workspace, threadId: t.id})-[:HAS_CHECKPOINT]->(c:Checkpoint)
    WHERE r.status = 'COMPLETED'
    RETURN r {.*, checkpoint: c {.*}} ORDER BY r.ordinal DESC LIMIT 1
  } AS latestStable
