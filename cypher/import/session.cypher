// The provider thread (and its thread) an earlier import of this session made, if any,
// and the fingerprints of the thread's imported runs.
MATCH (pt:ProviderThread {workspace: $workspace, sessionKey: $sessionKey})
OPTIONAL MATCH (r:Run {workspace: $workspace, threadId: pt.threadId})
WHERE r.importKey IS NOT NULL
RETURN pt.threadId AS threadId, pt.id AS providerThreadId, collect(r.importKey) AS importKeys
