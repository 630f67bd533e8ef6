// The nodes of a workspace by label and its relationships by type: the exactness check
// of a restore compares these between the workspace and its copy.
CALL () {
  MATCH (n) WHERE n.workspace = $workspace
  RETURN 'node ' + labels(n)[0] AS kind, count(*) AS count
  UNION ALL
  MATCH (n)-[r]->(m) WHERE n.workspace = $workspace AND m.workspace = $workspace
  RETURN 'relationship ' + type(r) AS kind, count(*) AS count
}
RETURN kind, count ORDER BY kind
