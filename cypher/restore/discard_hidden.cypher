// A batch of what a stopped restore wrote under its hidden name, deleted (`threadline
// restore --discard`).
MATCH (r:Restore {scope: $workspace}) WHERE r.run = $run
CALL (r) {
  MATCH (n:Restoring) WHERE n.workspace = r.hidden
  WITH n LIMIT $batch
  DETACH DELETE n
  RETURN count(*) AS deleted
}
RETURN deleted
