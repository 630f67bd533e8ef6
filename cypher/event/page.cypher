MATCH (t:Thread {id: $threadId, workspace: $workspace})
OPTIONAL MATCH (after:ThreadEvent {id: $after, threadId: t.id})
WITH t, coalesce(after.seq, 0) AS fromSeq
MATCH (e:ThreadEvent {threadId: t.id})
WHERE e.seq > fromSeq
RETURN e {.*} AS value
ORDER BY e.seq
LIMIT $first
