// A batch of a snapshot's nodes, written under the restore's hidden workspace name, each
// marked Restoring with its snapshot key (index restoring_key) so the relationships after
// it find their ends; with how far into the snapshot the batch reaches ($line), in the
// same transaction, so a resumed restore starts after it. Datetimes come as ISO text
// (`row.times`), made here by `datetime()` (docs/MODEL.md, "Writing times"). No row: the
// restore is not this process's any more.
MATCH (r:Restore {scope: $workspace}) WHERE r.run = $run
CALL (r) {
  UNWIND $rows AS row
  CREATE (n:Restoring)
  SET n = row.props, n.workspace = r.hidden, n.restoreKey = row.key
  SET n:$(row.labels)
  FOREACH (k IN keys(row.times) | SET n[k] = datetime(row.times[k]))
  RETURN count(n) AS created
}
SET r.line = $line, r.nodes = r.nodes + created
RETURN created
