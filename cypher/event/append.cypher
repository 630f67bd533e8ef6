// Events get consecutive per-thread sequence numbers under the thread's lock.
MATCH (t:Thread {id: $threadId, workspace: $workspace})
WITH t, coalesce(t.eventSeq, 0) AS base
UNWIND range(0, size($events) - 1) AS i
WITH t, base, i, $events[i] AS e
CREATE (n:ThreadEvent)
SET n = e, n.seq = base + i + 1, n.threadId = t.id, n.workspace = $workspace
CREATE (t)-[:HAS_EVENT]->(n)
WITH t, max(n.seq) AS last
SET t.eventSeq = last
RETURN last
