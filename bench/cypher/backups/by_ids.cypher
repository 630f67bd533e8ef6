// The nodes of a workspace with these ids, of one label, and their properties.
UNWIND $ids AS id
CALL (id) {
  WITH id WHERE $label = 'Thread'
  MATCH (n:Thread {workspace: $workspace, id: id})
  RETURN n
  UNION ALL
  WITH id WHERE $label = 'Run'
  MATCH (n:Run {workspace: $workspace, id: id})
  RETURN n
  UNION ALL
  WITH id WHERE $label = 'ProviderThread'
  MATCH (n:ProviderThread {workspace: $workspace, id: id})
  RETURN n
  UNION ALL
  WITH id WHERE $label = 'ContextHandoff'
  MATCH (n:ContextHandoff {workspace: $workspace, id: id})
  RETURN n
  UNION ALL
  WITH id WHERE $label = 'ContextTransfer'
  MATCH (n:ContextTransfer {workspace: $workspace, id: id})
  RETURN n
  UNION ALL
  WITH id WHERE $label = 'ThreadEvent'
  MATCH (n:ThreadEvent {workspace: $workspace, id: id})
  RETURN n
  UNION ALL
  WITH id WHERE $label = 'Checkpoint'
  MATCH (n:Checkpoint {workspace: $workspace, id: id})
  RETURN n
}
RETURN labels(n)[0] AS label, n.id AS id, properties(n) AS props
