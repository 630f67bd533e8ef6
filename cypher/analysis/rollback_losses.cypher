// description: Work lost to rollbacks: rolled-back runs per thread, their time, files and items, and what was superseded.
// param workspace: string — the workspace to read
//
// `hours` is the wall time the rolled-back runs took (start to completion); `files` the
// paths their FILE_CHANGE items touched; `supersededTransfers` the pending forks, spawns
// and merge-backs taken from those runs that the rollback cancelled.
MATCH (r:Run {workspace: $workspace, status: 'ROLLED_BACK'}) USING INDEX r:Run(workspace, status)
MATCH (t:Thread)-[:HAS_RUN]->(r)
WITH t, r ORDER BY r.ordinal
WITH t, collect(r) AS runs
RETURN t.id AS thread, [r IN runs | r.ordinal] AS rolledBackRuns,
       COLLECT { UNWIND runs AS r RETURN DISTINCT r.provider } AS providers,
       round(reduce(s = 0.0, r IN runs |
         s + coalesce(duration.inSeconds(r.startedAt, r.completedAt).seconds, 0)) / 3600.0, 3)
         AS hours,
       COUNT { UNWIND runs AS r MATCH (r)-[:HAS_ITEM]->(i:RunItem) RETURN i } AS items,
       COLLECT {
         UNWIND runs AS r
         MATCH (r)-[:HAS_ITEM]->(i:RunItem)
         WHERE i.kind = 'FILE_CHANGE'
         RETURN DISTINCT i.path ORDER BY i.path
       } AS files,
       COUNT {
         UNWIND runs AS r
         MATCH (h:ContextHandoff)-[:COVERS]->(r)
         WHERE h.status = 'SUPERSEDED'
         RETURN DISTINCT h
       } AS supersededHandoffs,
       COUNT {
         UNWIND runs AS r
         MATCH (x:ContextTransfer)-[:SOURCE_RUN]->(r)
         WHERE x.status = 'SUPERSEDED'
         RETURN DISTINCT x
       } AS supersededTransfers
ORDER BY size(rolledBackRuns) DESC, thread
