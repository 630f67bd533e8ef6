// A page of a workspace's command receipts in commandId order, after $after (null: from
// the first), or with $ids those receipts. A receipt hangs off nothing. Properties as in
// backup/bundles.
MATCH (c:CommandReceipt {workspace: $workspace})
WHERE CASE WHEN $ids IS NULL THEN $after IS NULL OR c.commandId > $after
  ELSE c.commandId IN $ids END
RETURN c.commandId AS commandId, [k IN keys(c) | CASE WHEN valueType(c[k]) STARTS WITH 'ZONED DATETIME'
    AND NOT toString(c[k]) ENDS WITH ']' AND 1 <= c[k].year <= 9999
    THEN [k, c[k].epochSeconds, c[k].nanosecond, c[k].offsetSeconds] ELSE [k, c[k]] END] AS props,
  {labels: labels(c), id: c.id, commandId: c.commandId, element: elementId(c)} AS ref
ORDER BY c.commandId
LIMIT $page
