// description: Runs that no live provider thread covers, natively or through a ready handoff.
// param workspace: string — the workspace to read
// param limit: int = 200 — at most this many runs
//
// Live = a provider thread startRun may still reuse: ACTIVE, ROLLED_BACK, or PENDING with
// a native ref. A run is covered when it ran on one (native coverage) or a READY handoff
// delivered to one of its thread's provider threads covers it (docs/MODEL.md). A run
// listed here reaches a provider again only through a new full summary.
MATCH (t:Thread {workspace: $workspace})-[:HAS_RUN]->(r:Run) USING INDEX t:Thread(workspace)
WHERE r.status IN ['COMPLETED', 'FAILED', 'INTERRUPTED']
  AND NOT EXISTS {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    WHERE (pt.status IN ['ACTIVE', 'ROLLED_BACK']
           OR (pt.status = 'PENDING' AND pt.nativeRef IS NOT NULL))
      AND ((r)-[:EXECUTED_ON]->(pt)
           OR EXISTS {
             MATCH (pt)<-[:DELIVERED_TO]-(h:ContextHandoff)-[:COVERS]->(r)
             WHERE h.status = 'READY'
           })
  }
RETURN t.id AS thread, r.ordinal AS run, r.provider AS provider, r.status AS status,
       COLLECT {
         MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
         RETURN pt.provider + ' ' + pt.status ORDER BY pt.createdAt
       } AS providerThreads
ORDER BY thread, run
LIMIT $limit
