// description: Subagent fan-out: subagents per parent run, spawned with portable context or natively, and results returned.
// param workspace: string — the workspace to read
//
// One row per parent run that spawned subagents. `native` were recorded as spawned by the
// provider itself (recordNativeSubagent); `returned` sent a result the parent consumed.
MATCH (p:Thread {workspace: $workspace})-[:SUBAGENT]->(c:Thread) USING INDEX p:Thread(workspace)
MATCH (c)<-[:TO_THREAD]-(x:ContextTransfer)
WHERE x.type = 'SUBAGENT_SPAWN'
MATCH (parentRun:Run)-[:SPAWNED]->(x)
WITH p, parentRun, c, x,
     EXISTS {
       MATCH (c)<-[:FROM_THREAD]-(result:ContextTransfer)
       WHERE result.type = 'SUBAGENT_RESULT' AND result.status = 'CONSUMED'
     } AS returned
RETURN p.id AS parent, parentRun.ordinal AS parentRun, count(c) AS subagents,
       count(CASE WHEN x.resolutionStrategy = 'NATIVE_FORK' THEN 1 END) AS native,
       count(CASE WHEN x.resolutionStrategy = 'PORTABLE_CONTEXT' THEN 1 END) AS portable,
       count(CASE WHEN x.status = 'PENDING' THEN 1 END) AS notStarted,
       count(CASE WHEN returned THEN 1 END) AS returned,
       collect(c.id) AS children
ORDER BY subagents DESC, parent, parentRun
