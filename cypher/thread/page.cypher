// Keyset page of a workspace's threads, oldest first; $first + 1 rows tell hasNextPage.
// $titleContains (or null): only threads whose title holds it, case-insensitively.
// One seek of the (workspace, createdAt, id) index, read in its order from a second before
// the cursor on (null: from year 1), so a page reads about its own size at any number of
// threads. Past the cursor is decided on the instant (epoch second, nanosecond) and the id:
// Neo4j's `=` and order on datetimes also weigh the time zone, and a cursor comes back in
// another zone than the one stored. The hint and `t.id IS NOT NULL` keep the planner on
// that index: on its own it took the workspace's index, then sorted every thread.
MATCH (t:Thread {workspace: $workspace})
USING INDEX t:Thread(workspace, createdAt, id)
WHERE t.createdAt >= coalesce($afterCreatedAt - duration('PT1S'), datetime({epochSeconds: -62135596800}))
  AND t.id IS NOT NULL
  AND ($afterCreatedAt IS NULL
    OR t.createdAt.epochSeconds > $afterCreatedAt.epochSeconds
    OR (t.createdAt.epochSeconds = $afterCreatedAt.epochSeconds
      AND (t.createdAt.nanosecond > $afterCreatedAt.nanosecond
        OR (t.createdAt.nanosecond = $afterCreatedAt.nanosecond AND t.id > $afterId))))
  AND ($titleContains IS NULL OR toLower(t.title) CONTAINS toLower($titleContains))
RETURN t {.*} AS value
ORDER BY t.workspace, t.createdAt, t.id
LIMIT $first + 1
