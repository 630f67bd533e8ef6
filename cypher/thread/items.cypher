// A keyset page of the items of a thread's active runs (every run not rolled back; a run
// in progress has no items yet), oldest first by (run ordinal, position in the run). Each
// run's input comes first, as its item -1 of kind USER_GOAL (what a handoff that leaves an
// input out names), then the items it reported, 0, 1, ...
// $kinds / $ordinals null: every kind / every run. ($afterOrdinal, $afterIndex): the
// position of the last item answered (0, -1 before the first page). $first + 1 rows tell
// hasNextPage.
MATCH (r:Run {workspace: $workspace, threadId: $threadId})
WHERE r.status <> 'ROLLED_BACK' AND r.ordinal >= $afterOrdinal
  AND ($ordinals IS NULL OR r.ordinal IN $ordinals)
CALL (r) {
  WITH r
  WHERE ($kinds IS NULL OR 'USER_GOAL' IN $kinds) AND r.ordinal > $afterOrdinal
  RETURN -1 AS seq, {kind: 'USER_GOAL', text: coalesce(r.input, '')} AS item
  UNION ALL
  MATCH (r)-[:HAS_ITEM]->(i:RunItem)
  WHERE ($kinds IS NULL OR i.kind IN $kinds)
    AND (r.ordinal > $afterOrdinal OR i.seq > $afterIndex)
  RETURN i.seq AS seq, i {.*} AS item
}
RETURN r.id AS runId, r.ordinal AS runOrdinal, seq, item
ORDER BY runOrdinal, seq
LIMIT $first + 1
