// New transfers with their links: the threads they join, the runs and checkpoint of
// their source and base points, and the run that spawned a subagent.
UNWIND $transfers AS x
MATCH (src:Thread {id: x.props.sourceThreadId, workspace: $workspace})
MATCH (dst:Thread {id: x.props.targetThreadId, workspace: $workspace})
CREATE (n:ContextTransfer)
SET n = x.props, n.workspace = $workspace
CREATE (n)-[:FROM_THREAD]->(src)
CREATE (n)-[:TO_THREAD]->(dst)
WITH n, x
CALL (n, x) {
  MATCH (r:Run {id: x.sourceRunId, workspace: $workspace})
  CREATE (n)-[:SOURCE_RUN]->(r)
}
CALL (n, x) {
  MATCH (c:Checkpoint {id: x.sourceCheckpointId, workspace: $workspace})
  CREATE (n)-[:SOURCE_CHECKPOINT]->(c)
}
CALL (n, x) {
  MATCH (r:Run {id: x.baseRunId, workspace: $workspace})
  CREATE (n)-[:BASE_RUN]->(r)
}
CALL (n, x) {
  MATCH (r:Run {id: x.spawnedByRunId, workspace: $workspace})
  CREATE (r)-[:SPAWNED]->(n)
}
CALL (n, x) {
  MATCH (pt:ProviderThread {id: x.props.resolvedProviderThreadId, workspace: $workspace})
  CREATE (n)-[:RESOLVED_TO]->(pt)
}
RETURN n.id AS id
