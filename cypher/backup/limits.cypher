// A workspace's usage limits, or with $ids those. A limit hangs off nothing.
MATCH (l:ProviderLimit {workspace: $workspace})
WHERE $ids IS NULL OR l.id IN $ids
RETURN l.id AS id, properties(l) AS props, {labels: labels(l), id: l.id, element: elementId(l)} AS ref
