// A batch of a snapshot's nodes, in the restore's one transaction. Each is marked
// Restoring with its snapshot key (index restoring_key) until backup/restore_finish, so
// the relationships after it find their ends.
UNWIND $rows AS row
CREATE (n:Restoring)
SET n = row.props, n.workspace = $workspace, n.restoreKey = row.key
SET n:$(row.labels)
RETURN count(n) AS created
