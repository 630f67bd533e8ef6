// description: Forks and subagents by divergence: what their source did since they were taken, and what of theirs has not gone back.
// param workspace: string — the workspace to read
//
// The same rule as `Thread.divergence` (docs/MODEL.md, "Fork divergence"). `forkedAt` is
// the source run the child was taken at (0: before any); `sourceRunsSinceFork` the
// source's runs after it that are not rolled back; `sourceRolledBackPastFork` whether the
// source rolled back past that run (then a merge-back is refused) and `sourceRolledBackTo`
// where it went back to; `unmergedRuns` the child's history runs after the last
// merge-back (or subagent result) that was not superseded, `lastMergeBackAt` its time.
// Most diverged first: rolled back past the fork, then most source runs since.
MATCH (f:Thread {workspace: $workspace}) USING INDEX f:Thread(workspace)
WHERE f.relationshipToParent IS NOT NULL
MATCH (f)<-[:TO_THREAD]-(x:ContextTransfer)-[:FROM_THREAD]->(s:Thread)
WHERE x.type IN ['FORK', 'SUBAGENT_SPAWN']
OPTIONAL MATCH (x)-[:SOURCE_RUN]->(point:Run)
WITH f, s, point, coalesce(point.ordinal, 0) AS forkedAt,
     coalesce(point.status = 'ROLLED_BACK', false) AS pastFork,
     COLLECT {
       MATCH (f)<-[:FROM_THREAD]-(back:ContextTransfer)-[:TO_THREAD]->(s)
       WHERE back.type IN ['MERGE_BACK', 'SUBAGENT_RESULT'] AND back.status <> 'SUPERSEDED'
       RETURN back ORDER BY back.createdAt DESC, back.id DESC LIMIT 1
     } AS backs
WITH f, s, point, forkedAt, pastFork, backs[0] AS last
OPTIONAL MATCH (last)-[:SOURCE_RUN]->(carried:Run)
WITH f, s, point, forkedAt, pastFork, last, coalesce(carried.ordinal, 0) AS mergedThrough
RETURN f.id AS fork, f.relationshipToParent AS relationship, s.id AS source, forkedAt,
       COLLECT {
         MATCH (s)-[:HAS_RUN]->(r:Run)
         WHERE r.ordinal > forkedAt AND r.status <> 'ROLLED_BACK'
         RETURN r.ordinal ORDER BY r.ordinal
       } AS sourceRunsSinceFork,
       pastFork AS sourceRolledBackPastFork,
       CASE WHEN pastFork THEN point.rolledBackTo END AS sourceRolledBackTo,
       COLLECT {
         MATCH (f)-[:HAS_RUN]->(r:Run)
         WHERE r.ordinal > mergedThrough AND r.status IN ['COMPLETED', 'FAILED', 'INTERRUPTED']
         RETURN r.ordinal ORDER BY r.ordinal
       } AS unmergedRuns,
       last.createdAt AS lastMergeBackAt
ORDER BY sourceRolledBackPastFork DESC, size(sourceRunsSinceFork) DESC, size(unmergedRuns) DESC,
         fork
