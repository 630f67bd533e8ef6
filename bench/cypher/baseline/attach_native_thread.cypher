// Baseline for attachNativeThread, as one statement in one transaction: lock the thread,
// record the native ref on the provider thread, its starting run becomes RUNNING, the
// event and the command receipt.
MATCH (t:Thread {workspace: $workspace, id: $threadId})
SET t.version = t.version + 1
WITH t
MATCH (pt:ProviderThread {id: $providerThreadId, workspace: $workspace})
SET pt.nativeRef = $nativeRef, pt.historyMode = $historyMode,
    pt.status = CASE pt.status WHEN 'PENDING' THEN 'ACTIVE' ELSE pt.status END
WITH t
CALL (t) {
  MATCH (r:Run {id: $runId, workspace: $workspace})
  WHERE r.status = 'STARTING'
  SET r.status = 'RUNNING'
}
CALL (t) {
  UNWIND range(0, size($events) - 1) AS i
  CREATE (t)-[:HAS_EVENT]->(e:ThreadEvent)
  SET e = $events[i], e.seq = t.eventSeq + i + 1
}
SET t.eventSeq = t.eventSeq + size($events)
CREATE (receipt:CommandReceipt)
SET receipt = $receipt
