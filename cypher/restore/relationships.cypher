// A batch of a snapshot's relationships, between nodes the restore wrote under its hidden
// name (by key), with how far into the snapshot it reaches, as restore/nodes.
MATCH (r:Restore {scope: $workspace}) WHERE r.run = $run
CALL (r) {
  UNWIND $rows AS row
  MATCH (a:Restoring {restoreKey: row.from}) WHERE a.workspace = r.hidden
  MATCH (b:Restoring {restoreKey: row.to}) WHERE b.workspace = r.hidden
  CREATE (a)-[rel:$(row.type)]->(b)
  SET rel = row.props
  FOREACH (k IN keys(row.times) | SET rel[k] = datetime(row.times[k]))
  RETURN count(rel) AS created
}
SET r.line = $line, r.relationships = r.relationships + created
RETURN created
