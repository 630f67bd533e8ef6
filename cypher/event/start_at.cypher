// The start (or restart) a thread recorded at exactly $at, if any: the decision a run made
// then, for explainStartContext as of that instant. Seeks the thread's events by index.
MATCH (e:ThreadEvent {workspace: $workspace, threadId: $threadId})
WHERE e.at = $at AND e.type IN ['run.started', 'run.restarted']
RETURN e {.*, at: toString(e.at)} AS event
ORDER BY e.seq DESC
LIMIT 1
