// Conformance: every property key of a workspace's nodes with its value type, by label,
// status and type (transfers and events differ by type), and how many nodes of that
// group carry it.
MATCH (n)
WHERE n.workspace = $workspace
WITH labels(n)[0] AS label, coalesce(n.status, '') AS status, coalesce(n.type, '') AS type, n
UNWIND keys(n) AS key
RETURN label, status, type, key, valueType(n[key]) AS valueType, count(*) AS carried
