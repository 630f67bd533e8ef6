// Conformance: every relationship pattern leaving a workspace's nodes, with its keys.
MATCH (a)-[r]->(b)
WHERE a.workspace = $workspace
RETURN labels(a)[0] AS start, type(r) AS type, labels(b)[0] AS end, keys(r) AS keys,
  count(*) AS total
ORDER BY start, type, end
