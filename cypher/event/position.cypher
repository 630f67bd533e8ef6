// Where a subscription resumes: the seq of the event $after in this thread. No row when
// $after is not an event of the thread (unknown, or another thread's or workspace's), so
// the caller can refuse it instead of replaying from the start.
MATCH (e:ThreadEvent {id: $after, workspace: $workspace, threadId: $threadId})
RETURN e.seq AS seq
