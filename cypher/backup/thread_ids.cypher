// A page of a workspace's thread ids in id order, after $after (null: from the first).
MATCH (t:Thread {workspace: $workspace})
WHERE $after IS NULL OR t.id > $after
RETURN t.id AS id
ORDER BY t.id
LIMIT $page
