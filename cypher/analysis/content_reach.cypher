// description: The threads a run's content reached: through handoffs that cover it (or a later run of its thread) and native forks or subagents taken at or after it.
// param workspace: string — the workspace to read
// param runId: string — the run whose content to follow
//
// A thread is reached when one of its runs (not rolled back) consumed a handoff covering
// the run or a later run of the same thread, or when it was forked or spawned natively
// from the run or a later one. `hops` 2: reached onward from a thread reached first
// (e.g. merged back into the parent, then handed to a subagent); content is followed two
// hops. `fromRun` is the first run of the reached thread that has it.
MATCH (r:Run {id: $runId, workspace: $workspace})<-[:HAS_RUN]-(origin:Thread)
WHERE r.status <> 'ROLLED_BACK'
CALL (origin, r) {
  CALL (origin, r) {
    MATCH (origin)-[:HAS_RUN]->(k:Run)<-[:COVERS]-(h:ContextHandoff)<-[:CONSUMED]-(y:Run)
    WHERE k.ordinal >= r.ordinal AND k.status <> 'ROLLED_BACK' AND y.status <> 'ROLLED_BACK'
    MATCH (y)<-[:HAS_RUN]-(reached:Thread)
    WHERE reached <> origin
    RETURN reached, y.ordinal AS fromRun, h.kind AS via
    UNION
    MATCH (origin)<-[:FROM_THREAD]-(x:ContextTransfer)-[:SOURCE_RUN]->(s:Run)
    WHERE x.resolutionStrategy = 'NATIVE_FORK' AND s.ordinal >= r.ordinal
    MATCH (x)-[:TO_THREAD]->(reached:Thread)
    RETURN reached, 1 AS fromRun, 'NATIVE_FORK' AS via
  }
  WITH reached, min(fromRun) AS fromRun, collect(DISTINCT via) AS via
  RETURN collect({thread: reached, fromRun: fromRun, via: via, hops: 1}) AS first
}
CALL (origin, first) {
  CALL (origin, first) {
    UNWIND first AS hit
    WITH hit.thread AS t, hit.fromRun AS since
    MATCH (t)-[:HAS_RUN]->(k:Run)<-[:COVERS]-(h:ContextHandoff)<-[:CONSUMED]-(y:Run)
    WHERE k.ordinal >= since AND k.status <> 'ROLLED_BACK' AND y.status <> 'ROLLED_BACK'
    MATCH (y)<-[:HAS_RUN]-(reached:Thread)
    WHERE reached <> t AND reached <> origin
    RETURN reached, y.ordinal AS fromRun, h.kind AS via
    UNION
    UNWIND first AS hit
    WITH hit.thread AS t, hit.fromRun AS since
    MATCH (t)<-[:FROM_THREAD]-(x:ContextTransfer)-[:SOURCE_RUN]->(s:Run)
    WHERE x.resolutionStrategy = 'NATIVE_FORK' AND s.ordinal >= since
    MATCH (x)-[:TO_THREAD]->(reached:Thread)
    WHERE reached <> origin
    RETURN reached, 1 AS fromRun, 'NATIVE_FORK' AS via
  }
  WITH reached, min(fromRun) AS fromRun, collect(DISTINCT via) AS via
  WHERE NOT reached IN [hit IN first | hit.thread]
  RETURN collect({thread: reached, fromRun: fromRun, via: via, hops: 2}) AS second
}
UNWIND first + second AS hit
RETURN hit.thread.id AS thread, hit.thread.title AS title,
       hit.thread.relationshipToParent AS relationship, hit.hops AS hops,
       hit.fromRun AS fromRun, hit.via AS via
ORDER BY hops, thread
