// Baseline for startRun: the writes a start makes, as one statement in one transaction.
// Lock the thread, create a new provider thread when asked, the run on its provider
// thread, the handoff it consumes when asked (with its links and the runs it covers),
// the events (consecutive seq under the lock) and the command receipt.
MATCH (t:Thread {workspace: $workspace, id: $threadId})
SET t.version = t.version + 1, t.lastOrdinal = $run.ordinal, t.cleanContextRequested = false
WITH t
CALL (t) {
  UNWIND $newProviderThreads AS p
  CREATE (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
  SET pt = p
}
WITH t
MATCH (pt:ProviderThread {id: $run.providerThreadId, workspace: $workspace})
SET pt.lastUsedAt = $run.startedAt, pt.model = $run.model
CREATE (t)-[:HAS_RUN]->(r:Run)
SET r = $run
CREATE (r)-[:EXECUTED_ON]->(pt)
WITH t, pt, r
CALL (t, pt, r) {
  UNWIND $handoffs AS h
  CREATE (n:ContextHandoff)
  SET n = h
  CREATE (n)-[:FOR_THREAD]->(t)
  CREATE (n)-[:SOURCE_THREAD]->(t)
  CREATE (n)-[:DELIVERED_TO]->(pt)
  CREATE (r)-[:CONSUMED]->(n)
  WITH n, h
  CALL (n, h) {
    UNWIND h.fromProviderThreadIds AS fromId
    MATCH (source:ProviderThread {id: fromId, workspace: $workspace})
    CREATE (n)-[:FROM_PROVIDER_THREAD]->(source)
  }
  CALL (n, h) {
    MATCH (covered:Run {workspace: $workspace, threadId: h.threadId})
    WHERE h.coveredFrom <= covered.ordinal <= h.coveredTo AND covered.status <> 'ROLLED_BACK'
    CREATE (n)-[:COVERS]->(covered)
  }
}
WITH t
CALL (t) {
  UNWIND range(0, size($events) - 1) AS i
  CREATE (t)-[:HAS_EVENT]->(e:ThreadEvent)
  SET e = $events[i], e.seq = t.eventSeq + i + 1
}
SET t.eventSeq = t.eventSeq + size($events)
CREATE (receipt:CommandReceipt)
SET receipt = $receipt
