// What any write to a workspace changes: its write position (the sum of its write gate's
// counts: every command passes the gate), the number of its threads and the sum of their
// versions (every command that changes a thread's nodes takes the thread's lock, which
// counts its version up, also one written by a Threadline without gates) and its usage
// limits, ended or not. A backup reads it before and after a read that is to be
// consistent: Neo4j reads are read-committed, so a difference means a write landed
// meanwhile. Index seeks only: it also runs inside the backup's pause.
CALL () {
  MATCH (g:WriteGate {scope: $workspace}) RETURN coalesce(sum(g.seq), 0) AS writes
}
CALL () {
  MATCH (t:Thread {workspace: $workspace})
  RETURN count(t) AS threads, coalesce(sum(t.version), 0) AS versions
}
CALL () {
  MATCH (l:ProviderLimit {workspace: $workspace})
  RETURN count(l) AS limits, count(l.endedAt) AS endedLimits
}
RETURN writes, threads, versions, limits, endedLimits
