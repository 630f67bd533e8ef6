// A page of a thread's events after the event $after (from the start when null).
// Events are found by (workspace, threadId, seq), never by thread id alone: another
// workspace may use the same thread id. `known` is false when $after is not an event of
// this thread, so the caller can refuse the cursor instead of replaying from the start.
MATCH (t:Thread {id: $threadId, workspace: $workspace})
OPTIONAL MATCH (after:ThreadEvent {id: $after, workspace: $workspace, threadId: t.id})
WITH t, after, coalesce(after.seq, 0) AS fromSeq
RETURN $after IS NULL OR after IS NOT NULL AS known,
  COLLECT {
    MATCH (e:ThreadEvent {workspace: $workspace, threadId: t.id})
    WHERE e.seq > fromSeq
    RETURN e {.*, at: toString(e.at)} ORDER BY e.seq LIMIT $first
  } AS events
