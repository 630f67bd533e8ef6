// A sample of a workspace's nodes of one label: the first $limit whose id follows $after
// (the harness picks $after at random), with their properties. Index seeks only.
CALL () {
  WITH 1 AS one WHERE $label = 'Thread'
  MATCH (n:Thread {workspace: $workspace}) WHERE n.id > $after
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS one WHERE $label = 'Run'
  MATCH (n:Run {workspace: $workspace}) WHERE n.id > $after
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS one WHERE $label = 'ProviderThread'
  MATCH (n:ProviderThread {workspace: $workspace}) WHERE n.id > $after
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS one WHERE $label = 'ContextHandoff'
  MATCH (n:ContextHandoff {workspace: $workspace}) WHERE n.id > $after
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS one WHERE $label = 'ContextTransfer'
  MATCH (n:ContextTransfer {workspace: $workspace}) WHERE n.id > $after
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS one WHERE $label = 'ThreadEvent'
  MATCH (n:ThreadEvent {workspace: $workspace}) WHERE n.id > $after
  RETURN n ORDER BY n.id LIMIT $limit
  UNION ALL
  WITH 1 AS one WHERE $label = 'Checkpoint'
  MATCH (n:Checkpoint {workspace: $workspace}) WHERE n.id > $after
  RETURN n ORDER BY n.id LIMIT $limit
}
RETURN labels(n)[0] AS label, n.id AS id, properties(n) AS props
