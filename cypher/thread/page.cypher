// Keyset page of a workspace's threads, oldest first; $first + 1 rows tell hasNextPage.
// $titleContains (or null): only threads whose title holds it, case-insensitively.
MATCH (t:Thread {workspace: $workspace})
WHERE ($afterCreatedAt IS NULL
   OR t.createdAt > $afterCreatedAt
   OR (t.createdAt = $afterCreatedAt AND t.id > $afterId))
  AND ($titleContains IS NULL OR toLower(t.title) CONTAINS toLower($titleContains))
RETURN t {.*} AS value
ORDER BY t.createdAt, t.id
LIMIT $first + 1
