// Status changes; resolution and consumption also draw their edges.
UNWIND $changes AS change
MATCH (x:ContextTransfer {id: change.id, workspace: $workspace})
SET x += change.props
WITH x, change
CALL (x, change) {
  MATCH (pt:ProviderThread {id: change.props.resolvedProviderThreadId, workspace: $workspace})
  OPTIONAL MATCH (x)-[old:RESOLVED_TO]->()
  DELETE old
  CREATE (x)-[:RESOLVED_TO]->(pt)
}
CALL (x, change) {
  MATCH (r:Run {id: change.props.consumedByRunId, workspace: $workspace})
  MERGE (r)-[:CONSUMED_TRANSFER]->(x)
}
