// Keyset page of a workspace's threads, newest first: thread/page.cypher the other way
// round ($afterCreatedAt/$afterId: the last one answered; $first + 1 rows tell hasNextPage).
MATCH (t:Thread {workspace: $workspace})
WHERE ($afterCreatedAt IS NULL
   OR t.createdAt < $afterCreatedAt
   OR (t.createdAt = $afterCreatedAt AND t.id < $afterId))
  AND ($titleContains IS NULL OR toLower(t.title) CONTAINS toLower($titleContains))
RETURN t {.*} AS value
ORDER BY t.createdAt DESC, t.id DESC
LIMIT $first + 1
