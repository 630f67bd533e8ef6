// Test suites only: what holds in a workspace as one instant had it. Every run has its
// thread, every handoff its runs (the one it was made for, those it covers) and the
// threads it names, every transfer its two threads; each thread's own counters agree with
// what hangs off it (a read torn between two commands would not: events and runs are
// added with the counters, in one transaction). Each is a count of what breaks it.
RETURN
  COUNT {
    MATCH (r:Run {workspace: $workspace})
    WHERE NOT EXISTS { MATCH (:Thread {workspace: $workspace, id: r.threadId})-[:HAS_RUN]->(r) }
  } AS runsWithoutThread,
  COUNT {
    MATCH (h:ContextHandoff {workspace: $workspace})
    WHERE NOT EXISTS { MATCH (h)-[:FOR_THREAD]->(:Thread {workspace: $workspace, id: h.threadId}) }
       OR NOT EXISTS { MATCH (h)-[:SOURCE_THREAD]->(:Thread {workspace: $workspace, id: h.sourceThreadId}) }
       OR (h.targetRunId IS NOT NULL AND NOT EXISTS { MATCH (:Run {workspace: $workspace, id: h.targetRunId}) })
       OR (h.coveredTo > 0 AND NOT EXISTS { MATCH (h)-[:COVERS]->(:Run) })
  } AS handoffsMissingRuns,
  COUNT {
    MATCH (x:ContextTransfer {workspace: $workspace})
    WHERE NOT EXISTS { MATCH (x)-[:FROM_THREAD]->(:Thread {workspace: $workspace, id: x.sourceThreadId}) }
       OR NOT EXISTS { MATCH (x)-[:TO_THREAD]->(:Thread {workspace: $workspace, id: x.targetThreadId}) }
  } AS transfersWithoutEnds,
  COUNT {
    MATCH (t:Thread {workspace: $workspace})
    WHERE coalesce(t.eventSeq, 0) <> COUNT { MATCH (t)-[:HAS_EVENT]->(:ThreadEvent) }
  } AS threadsWithTornEvents,
  COUNT {
    MATCH (t:Thread {workspace: $workspace})
    WHERE coalesce(t.lastOrdinal, 0) <> coalesce(COLLECT { MATCH (t)-[:HAS_RUN]->(r:Run) RETURN max(r.ordinal) }[0], 0)
  } AS threadsWithTornRuns
