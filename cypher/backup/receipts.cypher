// A page of a workspace's command receipts in commandId order after $after ('' from the
// first), or with $ids (and $after null) those receipts. A receipt hangs off nothing.
// Properties as in backup/bundles. Each branch is one seek of the (workspace, commandId)
// index, the page in the index's own order (ordering by the workspace too is what lets the
// planner use it), so a page costs its own size at any number of receipts; the branch not
// asked for finds nothing.
CALL () {
  MATCH (c:CommandReceipt {workspace: $workspace})
  WHERE c.commandId > $after
  RETURN c ORDER BY c.workspace, c.commandId LIMIT $page
  UNION ALL
  MATCH (c:CommandReceipt {workspace: $workspace})
  WHERE c.commandId IN coalesce($ids, [])
  RETURN c
}
RETURN c.commandId AS commandId, [k IN keys(c) | CASE WHEN valueType(c[k]) STARTS WITH 'ZONED DATETIME'
    AND NOT toString(c[k]) ENDS WITH ']' AND 1 <= c[k].year <= 9999
    THEN [k, c[k].epochSeconds, c[k].nanosecond, c[k].offsetSeconds] ELSE [k, c[k]] END] AS props,
  {labels: labels(c), id: c.id, commandId: c.commandId, element: elementId(c)} AS ref
ORDER BY commandId
