// Baseline for completeRun, as one statement in one transaction: lock the thread, the
// run's new status, its items and checkpoint, the event and the command receipt.
MATCH (t:Thread {workspace: $workspace, id: $threadId})
SET t.version = t.version + 1
WITH t
MATCH (r:Run {id: $runId, workspace: $workspace})
SET r += $changes
WITH t, r
CALL (r) {
  UNWIND $items AS item
  CREATE (r)-[:HAS_ITEM]->(i:RunItem)
  SET i = item
}
CALL (r) {
  UNWIND $checkpoints AS checkpoint
  CREATE (r)-[:HAS_CHECKPOINT]->(k:Checkpoint)
  SET k = checkpoint
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
