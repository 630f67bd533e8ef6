// A batch of the restored nodes given the target's name, their marks removed. The target
// stays closed until restore/open: what is named so far is read by no one.
MATCH (r:Restore {scope: $workspace}) WHERE r.run = $run AND r.phase = 'NAMING'
CALL (r) {
  MATCH (n:Restoring) WHERE n.workspace = r.hidden
  WITH n LIMIT $batch
  SET n.workspace = r.scope
  REMOVE n:Restoring, n.restoreKey
  RETURN count(n) AS named
}
RETURN named
