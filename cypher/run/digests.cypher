// What summaries read of the runs at the given ordinals of each thread: the digest kept on
// the run since it ended, or (for runs written before digests of $digestVersion existed)
// the run itself.
UNWIND $wants AS want
MATCH (t:Thread {id: want.threadId, workspace: $workspace})
UNWIND want.ordinals AS ordinal
MATCH (r:Run {workspace: $workspace, threadId: t.id, ordinal: ordinal})
WITH t, r, coalesce(r.digestVersion, 1) >= $digestVersion AS current
RETURN t.id AS threadId, CASE WHEN current THEN r.digestJson END AS digest,
  CASE WHEN NOT current THEN r {.*,
    items: COLLECT { MATCH (r)-[:HAS_ITEM]->(i:RunItem) RETURN i {.*} ORDER BY i.seq },
    checkpoint: COLLECT { MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint) RETURN c {.*} }[0]
  } ELSE null END AS run
