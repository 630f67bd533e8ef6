// A keyset page of the items of a thread's active runs (every run not rolled back; a run
// in progress has none yet), oldest first by (run ordinal, position in the run).
// $kinds / $ordinals null: every kind / every run. $first + 1 rows tell hasNextPage.
MATCH (r:Run {workspace: $workspace, threadId: $threadId})
WHERE r.status <> 'ROLLED_BACK' AND r.ordinal >= $afterOrdinal
  AND ($ordinals IS NULL OR r.ordinal IN $ordinals)
MATCH (r)-[:HAS_ITEM]->(i:RunItem)
WHERE ($kinds IS NULL OR i.kind IN $kinds)
  AND (r.ordinal > $afterOrdinal OR i.seq > $afterIndex)
RETURN r.id AS runId, r.ordinal AS runOrdinal, i {.*} AS item
ORDER BY r.ordinal, i.seq
LIMIT $first + 1
