// Takes the thread's write lock for the rest of the transaction, so concurrent
// writers on one thread serialise (several API processes share one Neo4j).
MATCH (t:Thread {id: $threadId, workspace: $workspace})
SET t.version = coalesce(t.version, 0) + 1
RETURN t.version AS version
