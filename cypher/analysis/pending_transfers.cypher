// description: Transfers stuck pending: forks, spawns, merge-backs and results no run has taken yet, oldest first.
// param workspace: string — the workspace to read
// param minAgeMinutes: int = 0 — only transfers pending at least this long
//
// A FORK or SUBAGENT_SPAWN waits for the new thread's first run; a MERGE_BACK or
// SUBAGENT_RESULT for the parent's next run (`waitsOn` names that thread).
MATCH (x:ContextTransfer {workspace: $workspace, status: 'PENDING'})
USING INDEX x:ContextTransfer(workspace, status)
WHERE x.createdAt <= datetime() - duration({minutes: $minAgeMinutes})
MATCH (x)-[:FROM_THREAD]->(source:Thread)
MATCH (x)-[:TO_THREAD]->(target:Thread)
OPTIONAL MATCH (x)-[:SOURCE_RUN]->(r:Run)
RETURN x.id AS transfer, x.type AS type, source.id AS fromThread, r.ordinal AS fromRun,
       target.id AS waitsOn, x.createdAt AS createdAt,
       duration.inSeconds(x.createdAt, datetime()).seconds / 60 AS minutes
ORDER BY createdAt, transfer
