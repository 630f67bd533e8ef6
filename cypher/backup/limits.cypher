// A workspace's usage limits, or with $ids those. A limit hangs off nothing. Properties as
// in backup/bundles.
MATCH (l:ProviderLimit {workspace: $workspace})
WHERE $ids IS NULL OR l.id IN $ids
RETURN l.id AS id, [k IN keys(l) | CASE WHEN valueType(l[k]) STARTS WITH 'ZONED DATETIME'
    AND NOT toString(l[k]) ENDS WITH ']' AND 1 <= l[k].year <= 9999
    THEN [k, l[k].epochSeconds, l[k].nanosecond, l[k].offsetSeconds] ELSE [k, l[k]] END] AS props,
  {labels: labels(l), id: l.id, element: elementId(l)} AS ref
