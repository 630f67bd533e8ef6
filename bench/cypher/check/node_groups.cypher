// Conformance: how many nodes of a workspace each (label, status, type) group holds.
MATCH (n)
WHERE n.workspace = $workspace
RETURN labels(n)[0] AS label, coalesce(n.status, '') AS status, coalesce(n.type, '') AS type,
  count(*) AS total
