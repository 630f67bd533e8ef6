// description: Fork depth distribution: threads at each depth below their root, by relationship.
// param workspace: string — the workspace to read
//
// Depth 0 are roots; a fork of a fork is at depth 2. Lineage is a tree, so each thread
// has one path up; paths longer than 100 (the lineage query's cap) are not followed.
MATCH (t:Thread {workspace: $workspace}) USING INDEX t:Thread(workspace)
MATCH p = (t)<-[:FORK|SUBAGENT*0..100]-(root:Thread)
WHERE root.parentId IS NULL
RETURN length(p) AS depth, count(t) AS threads,
       count(CASE t.relationshipToParent WHEN 'FORK' THEN 1 END) AS forks,
       count(CASE t.relationshipToParent WHEN 'SUBAGENT' THEN 1 END) AS subagents
ORDER BY depth
