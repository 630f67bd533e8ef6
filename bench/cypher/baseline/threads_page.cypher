// Baseline read: the first page of `threads(first: 20, newestFirst: true)`, the ids only:
// the workspace's threads newest first off the (workspace, createdAt, id) index.
MATCH (t:Thread {workspace: $workspace})
USING INDEX t:Thread(workspace, createdAt, id)
WHERE t.createdAt <= datetime({epochSeconds: 253402300799}) AND t.id IS NOT NULL
RETURN t.id AS id
ORDER BY t.workspace DESC, t.createdAt DESC, t.id DESC
LIMIT $first
