// A page of a workspace's thread ids in id order after $after ('' from the first): one
// seek of the (workspace, id) index in its own order (ordering by the workspace too is what
// lets the planner use it), so a page costs its own size at any number of threads.
MATCH (t:Thread {workspace: $workspace})
WHERE t.id > $after
RETURN t.id AS id
ORDER BY t.workspace, t.id
LIMIT $page
