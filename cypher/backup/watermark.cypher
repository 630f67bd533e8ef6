// What any write to a workspace changes: its node count (every command that creates),
// the sum of its threads' versions (every command that changes a thread's nodes takes the
// thread's lock, which counts its version up) and its ended usage limits. A backup reads
// it first and last in its transaction: Neo4j reads are read-committed, so a difference
// means a write landed while it read, and the snapshot is not taken.
MATCH (n) WHERE n.workspace = $workspace
RETURN count(n) AS nodes,
  sum(CASE WHEN n:Thread THEN coalesce(n.version, 0) ELSE 0 END) AS versions,
  count(CASE WHEN n:ProviderLimit THEN n.endedAt END) AS endedLimits
