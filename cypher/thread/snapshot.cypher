// Everything a decision on a thread needs, for one or many threads, in one round trip.
// $withContent = false skips run items (coverage needs no content).
UNWIND $threadIds AS threadId
MATCH (t:Thread {id: threadId, workspace: $workspace})
RETURN t {.*} AS thread,
  COLLECT {
    MATCH (t)-[:HAS_RUN]->(r:Run)
    OPTIONAL MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint)
    RETURN r {.*,
      items: CASE WHEN $withContent
        THEN COLLECT { MATCH (r)-[:HAS_ITEM]->(i:RunItem) RETURN i {.*} ORDER BY i.seq }
        ELSE [] END,
      checkpoint: CASE WHEN c IS NULL THEN null ELSE c {.*} END,
      consumedHandoffIds: COLLECT { MATCH (r)-[:CONSUMED]->(h:ContextHandoff) RETURN h.id }
    } ORDER BY r.ordinal
  } AS runs,
  COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread) RETURN pt {.*}
  } AS providerThreads,
  COLLECT {
    MATCH (h:ContextHandoff)-[:FOR_THREAD]->(t) RETURN h {.*}
  } AS handoffs,
  COLLECT {
    MATCH (x:ContextTransfer)-[:TO_THREAD]->(t) RETURN x {.*} ORDER BY x.createdAt, x.id
  } AS transfers,
  COLLECT {
    MATCH (x:ContextTransfer)-[:FROM_THREAD]->(t) RETURN x {.*} ORDER BY x.createdAt, x.id
  } AS outgoingTransfers
