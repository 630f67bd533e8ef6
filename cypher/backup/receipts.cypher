// A page of a workspace's command receipts in commandId order, after $after (null: from
// the first), or with $ids those receipts. A receipt hangs off nothing.
MATCH (c:CommandReceipt {workspace: $workspace})
WHERE CASE WHEN $ids IS NULL THEN $after IS NULL OR c.commandId > $after
  ELSE c.commandId IN $ids END
RETURN c.commandId AS commandId, properties(c) AS props,
  {labels: labels(c), id: c.id, commandId: c.commandId, element: elementId(c)} AS ref
ORDER BY c.commandId
LIMIT $page
