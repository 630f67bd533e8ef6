// Keyset page of a workspace's threads, newest first: thread/page.cypher the other way
// round ($afterCreatedAt/$afterId: the last one answered, null: from year 9999's end;
// $first + 1 rows tell hasNextPage), the same index read backwards from a second after it.
MATCH (t:Thread {workspace: $workspace})
USING INDEX t:Thread(workspace, createdAt, id)
WHERE t.createdAt <= coalesce($afterCreatedAt + duration('PT1S'), datetime({epochSeconds: 253402300799}))
  AND t.id IS NOT NULL
  AND ($afterCreatedAt IS NULL
    OR t.createdAt.epochSeconds < $afterCreatedAt.epochSeconds
    OR (t.createdAt.epochSeconds = $afterCreatedAt.epochSeconds
      AND (t.createdAt.nanosecond < $afterCreatedAt.nanosecond
        OR (t.createdAt.nanosecond = $afterCreatedAt.nanosecond AND t.id < $afterId))))
  AND ($titleContains IS NULL OR toLower(t.title) CONTAINS toLower($titleContains))
RETURN t {.*} AS value
ORDER BY t.workspace DESC, t.createdAt DESC, t.id DESC
LIMIT $first + 1
