// A batch of what a restore stopped while naming had already named, deleted: the target
// held nothing when the restore closed it, and nothing else has written it since.
MATCH (r:Restore {scope: $workspace}) WHERE r.run = $run AND r.phase = 'NAMING'
CALL (r) {
  MATCH (n) WHERE n.workspace = r.scope
  WITH n LIMIT $batch
  DETACH DELETE n
  RETURN count(*) AS deleted
}
RETURN deleted
