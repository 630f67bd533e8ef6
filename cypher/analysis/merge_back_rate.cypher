// description: Merge-back rate: the share of forks whose work came back to their parent.
// param workspace: string — the workspace to read
//
// A fork is merged back when a MERGE_BACK transfer from it was CONSUMED by a parent run;
// `pending` forks have one waiting for the parent's next run. `withWork` forks have at
// least one completed run (only those can merge back). Rates are over all forks.
MATCH (f:Thread {workspace: $workspace}) USING INDEX f:Thread(workspace)
WHERE f.relationshipToParent = 'FORK'
WITH f,
     EXISTS { MATCH (f)-[:HAS_RUN]->(r:Run) WHERE r.status = 'COMPLETED' } AS withWork,
     EXISTS {
       MATCH (f)<-[:FROM_THREAD]-(x:ContextTransfer)
       WHERE x.type = 'MERGE_BACK' AND x.status = 'CONSUMED'
     } AS merged,
     EXISTS {
       MATCH (f)<-[:FROM_THREAD]-(x:ContextTransfer)
       WHERE x.type = 'MERGE_BACK' AND x.status = 'PENDING'
     } AS pending
WITH count(f) AS forks,
     count(CASE WHEN withWork THEN 1 END) AS withWork,
     count(CASE WHEN merged THEN 1 END) AS mergedBack,
     count(CASE WHEN pending THEN 1 END) AS pending
RETURN forks, withWork, mergedBack, pending,
       CASE WHEN forks = 0 THEN null ELSE round(toFloat(mergedBack) / forks, 3) END AS rate
