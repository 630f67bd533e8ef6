// Bulk: each thread's event log (seq 1..n; the thread's eventSeq is n).
UNWIND $rows AS row
MATCH (t:Thread {workspace: $workspace, id: row.threadId})
CALL (t, row) {
  UNWIND row.events AS event
  CREATE (t)-[:HAS_EVENT]->(e:ThreadEvent)
  SET e = event
}
