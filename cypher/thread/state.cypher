// The state decisions on a thread read (graph.models.ThreadState), for the thread and,
// with $related, its ancestors and the sources of transfers waiting for it. Bounded
// whatever the thread's length (docs/MODEL.md, "The state read"): runs appear only as the
// latest ones and as ranges kept on threads and provider threads, handoffs without their
// text but for the run in progress, and with $trimmed only the provider threads a decision
// may use or name. With $lock, the thread's write lock is taken first, so concurrent
// writers on one thread serialise (several API processes share one Neo4j); the statement
// is then a write, so it always runs in a write transaction. Temporal properties leave as
// ISO strings (docs/MODEL.md, "Reading times"). With $runHandoffsOnly (the commands on
// a run already started: attach, complete, fail), the live handoffs are only those of the
// run in progress, the only ones their decisions look at, and no prepared handoff is read.
// With $gate (a slot number: the statement takes locks), that slot of the workspace's
// write gate is locked first, before any thread, so a backup's pause, which locks every
// slot, and this command wait for each other, never both on the other (docs/MODEL.md,
// "Write gates"). A workspace a restore holds closed answers no row.
CALL () {
  UNWIND CASE WHEN $gate IS NULL THEN [] ELSE [$gate] END AS slot
  MERGE (g:WriteGate {scope: $workspace, slot: slot})
  SET g.seq = coalesce(g.seq, 0) + 1
  RETURN count(g) AS gated
}
WITH gated WHERE NOT EXISTS { MATCH (:Restore {scope: $workspace}) }
// The thread is named by its id, or by a run or provider thread on it (the others null).
CALL () {
  MATCH (t:Thread {id: $threadId, workspace: $workspace}) RETURN t
  UNION
  MATCH (t:Thread)-[:HAS_RUN]->(:Run {id: $runId, workspace: $workspace}) RETURN t
  UNION
  MATCH (t:Thread)-[:HAS_PROVIDER_THREAD]->(:ProviderThread {id: $providerThreadId, workspace: $workspace})
  RETURN t
}
WITH t AS main
// The write lock (docs/MODEL.md, "Locks"): the thread, and with $lockEnds the threads at
// the other end of every pending transfer to or from it (and with $lockParent its
// parent), all in the order of their ids, so two commands never wait on each other in
// opposite orders. A transfer is written only by a command holding both its ends, so
// whoever holds either end reads it settled. Ends found before the locks may be stale:
// once they are held, the ends are read again and any new one is locked too.
CALL (main) {
  WITH main WHERE $lock
  CALL (main) {
    UNWIND [main.id] + CASE WHEN $lockParent THEN [main.parentId] ELSE [] END +
      CASE WHEN $lockEnds THEN
        COLLECT { MATCH (x:ContextTransfer)-[:TO_THREAD]->(main) WHERE x.status = 'PENDING' RETURN x.sourceThreadId } +
        COLLECT { MATCH (x:ContextTransfer)-[:FROM_THREAD]->(main) WHERE x.status = 'PENDING' RETURN x.targetThreadId }
      ELSE [] END AS id
    WITH DISTINCT id WHERE id IS NOT NULL ORDER BY id
    MATCH (held:Thread {id: id, workspace: $workspace})
    // Each locked thread carries the gate position it was last locked at: a backup finds
    // the threads changed since it read them by that (index thread_workspace_gate).
    OPTIONAL MATCH (g:WriteGate {scope: $workspace, slot: $gate})
    SET held.version = coalesce(held.version, 0) + 1, held.gateSlot = g.slot, held.gateSeq = g.seq
    RETURN collect(id) AS first
  }
  CALL (main, first) {
    WITH main, first WHERE $lockEnds
    UNWIND COLLECT { MATCH (x:ContextTransfer)-[:TO_THREAD]->(main) WHERE x.status = 'PENDING' RETURN x.sourceThreadId } +
      COLLECT { MATCH (x:ContextTransfer)-[:FROM_THREAD]->(main) WHERE x.status = 'PENDING' RETURN x.targetThreadId } AS id
    WITH DISTINCT id WHERE NOT id IN first ORDER BY id
    MATCH (late:Thread {id: id, workspace: $workspace})
    OPTIONAL MATCH (g:WriteGate {scope: $workspace, slot: $gate})
    SET late.version = coalesce(late.version, 0) + 1, late.gateSlot = g.slot, late.gateSeq = g.seq
  }
}
OPTIONAL MATCH (busy:Run {workspace: $workspace, threadId: main.id, ordinal: main.lastOrdinal})
WITH main, CASE WHEN $related THEN
    // No label on a: FORK, SUBAGENT and SIDE only join threads, and a label invites a thread scan.
    COLLECT { MATCH (a)-[:FORK|SUBAGENT|SIDE*1..100]->(main) RETURN a.id } +
    COLLECT {
      MATCH (x:ContextTransfer)-[:TO_THREAD]->(main)
      WHERE x.status = 'PENDING' OR (busy IS NOT NULL AND x.consumedByRunId = busy.id)
      RETURN x.sourceThreadId
    } + $extra
  ELSE [] END AS relatedIds
UNWIND [main.id] + [id IN relatedIds WHERE id <> main.id] AS threadId
WITH DISTINCT main.id AS mainId, threadId
MATCH (t:Thread {id: threadId, workspace: $workspace})
OPTIONAL MATCH (last:Run {workspace: $workspace, threadId: t.id, ordinal: t.lastOrdinal})
// With $trimmed, the main thread's settled provider threads (one more every few provider
// switches) are left out, but for those a decision may still name: the latest of each
// provider, the last run's and the one the command names (docs/MODEL.md "The state read").
WITH mainId, t, last, CASE WHEN $trimmed AND t.id = mainId THEN COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(p:ProviderThread)
    WITH p ORDER BY p.lastUsedAt DESC, p.createdAt DESC, p.id DESC
    WITH p.provider AS provider, collect(p.id)[0] AS latest
    RETURN latest
  } + [last.providerThreadId, $providerThreadId] END AS named
// The live handoffs of the run in progress, with their text: its answer injects them.
WITH mainId, t, last, named, CASE WHEN last IS NULL OR NOT last.status IN ['STARTING', 'RUNNING'] THEN [] ELSE COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    WHERE NOT pt.status IN ['STALE', 'FAILED', 'DIVERGENT']
    MATCH (h:ContextHandoff {targetRunId: last.id})-[:DELIVERED_TO]->(pt)
    WHERE h.status IN ['READY', 'PENDING']
    RETURN h {.*, createdAt: toString(h.createdAt), updatedAt: toString(h.updatedAt)} ORDER BY h.createdAt, h.id
  } END AS runHandoffs
RETURN t.id = mainId AS isMain, t {.*, createdAt: toString(t.createdAt)} AS thread,
  CASE WHEN last IS NULL THEN null ELSE last {.*, startedAt: toString(last.startedAt), completedAt: toString(last.completedAt),
    checkpoint: COLLECT { MATCH (last)-[:HAS_CHECKPOINT]->(c:Checkpoint) RETURN c {.*, createdAt: toString(c.createdAt)} }[0],
    consumedHandoffIds: COLLECT { MATCH (last)-[:CONSUMED]->(h:ContextHandoff) RETURN h.id }
  } END AS lastRun,
  COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    WHERE named IS NULL OR NOT pt.status IN ['STALE', 'FAILED', 'DIVERGENT'] OR pt.id IN named
    RETURN pt {.*, createdAt: toString(pt.createdAt), lastUsedAt: toString(pt.lastUsedAt)} ORDER BY pt.createdAt, pt.id
  } AS providerThreads,
  // Only a reusable provider thread continues a delta chain.
  COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    WHERE NOT pt.status IN ['STALE', 'FAILED', 'DIVERGENT'] AND size(coalesce(pt.nativeRanges, [])) > 0
    MATCH (r:Run {workspace: $workspace, threadId: t.id, ordinal: pt.nativeRanges[-1]})
    RETURN [pt.id, coalesce(r.deltaChain, 0)]
  } AS deltaChains,
  // Live handoffs without their text (a full summary runs to its token budget).
  CASE WHEN $runHandoffsOnly THEN [h IN runHandoffs | h {.*, summaryText: null, sectionsJson: null, omittedJson: null, entriesJson: null, qualityJson: null}] ELSE COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    WHERE NOT pt.status IN ['STALE', 'FAILED', 'DIVERGENT']
    MATCH (h:ContextHandoff)-[:DELIVERED_TO]->(pt)
    WHERE h.status IN ['READY', 'PENDING']
    RETURN h {.*, summaryText: null, sectionsJson: null, omittedJson: null, entriesJson: null, qualityJson: null, createdAt: toString(h.createdAt), updatedAt: toString(h.updatedAt)}
    ORDER BY h.createdAt, h.id
  } END AS handoffs,
  runHandoffs,
  COLLECT {
    MATCH (x:ContextTransfer)-[:TO_THREAD]->(t)
    WHERE x.status = 'PENDING' OR x.type IN ['FORK', 'SUBAGENT_SPAWN']
       OR (last IS NOT NULL AND x.consumedByRunId = last.id)
    RETURN x {.*, createdAt: toString(x.createdAt), consumedAt: toString(x.consumedAt)} ORDER BY x.createdAt, x.id
  } AS transfers,
  COLLECT {
    MATCH (x:ContextTransfer)-[:FROM_THREAD]->(t)
    WHERE x.status = 'PENDING'
    RETURN x {.*, createdAt: toString(x.createdAt), consumedAt: toString(x.consumedAt)} ORDER BY x.createdAt, x.id
  } AS outgoingTransfers,
  // The latest completed run (and the latest with a checkpoint), walking back from the
  // latest ordinal: a few index seeks, not a scan of the thread's runs. Only lineage
  // commands need them ($points).
  CASE WHEN $points THEN COLLECT {
    UNWIND range(t.lastOrdinal, 1, -1) AS ordinal
    MATCH (r:Run {workspace: $workspace, threadId: t.id, ordinal: ordinal})
    WHERE r.status = 'COMPLETED'
    WITH r LIMIT 1
    RETURN r {.*,
      checkpoint: COLLECT { MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint) RETURN c {.*} }[0]
    }
  } ELSE [] END AS latestCompleted,
  CASE WHEN $points THEN COLLECT {
    UNWIND range(t.lastOrdinal, 1, -1) AS ordinal
    MATCH (r:Run {workspace: $workspace, threadId: t.id, ordinal: ordinal})
          -[:HAS_CHECKPOINT]->(c:Checkpoint)
    WHERE r.status = 'COMPLETED'
    WITH r, c LIMIT 1
    RETURN r {.*, checkpoint: c {.*}}
  } ELSE [] END AS latestStable,
  // Handoffs prepared for the thread's next start on a provider and not injected yet (at
  // most one a provider), with their text: a start injects one as it is. The PREPARED
  // edges grow with the prepares a thread had, not with its runs.
  CASE WHEN $runHandoffsOnly OR t.id <> mainId THEN [] ELSE COLLECT {
    MATCH (t)-[:PREPARED]->(h:ContextHandoff)
    WHERE h.status = 'READY' AND h.targetRunId IS NULL
    RETURN h {.*, createdAt: toString(h.createdAt), updatedAt: toString(h.updatedAt)}
    ORDER BY h.createdAt, h.id
  } END AS prepared,
  // The workspace's usage limits in force at $limitsAt (startRun reads them with the
  // thread's state, not in a statement of their own); none when $limitsAt is null.
  CASE WHEN $limitsAt IS NOT NULL AND t.id = mainId THEN COLLECT {
    MATCH (l:ProviderLimit {workspace: $workspace})
    WHERE l.endedAt IS NULL AND (l.resetsAt IS NULL OR l.resetsAt > $limitsAt)
    RETURN l {.*, resetsAt: toString(l.resetsAt), reportedAt: toString(l.reportedAt)}
  } ELSE [] END AS limitsInForce
