// Writes a whole write plan (graph/plan.py) in one statement, in this order: new threads
// (with their lineage edge), provider threads, handoffs, runs, moved runs, run content,
// transfers, property changes, usage limits (new, then ended), events, and the command's receipt when it has a commandId
// (unique per workspace: a concurrent duplicate fails here and its transaction rolls
// back). Every value is the plan's; the edges follow from the ids it names. A change
// appends its history entry (graph/history.py) only when a tracked value really changes.
// Each row's times come apart from its props, as ISO text under `times`, and become
// DATETIME values here (docs/MODEL.md, "Writing times"). Each top-level `CALL () {` is a
// section that unwinds one list; a command runs only the sections whose list it fills
// (graph/queries.py, `trimmed`), so each section must stand without the others. New
// threads, usage limits (new or changed) and the receipt carry the position of the
// command's slot of the write gate ($gate, locked earlier in its transaction), by which a
// backup finds what changed since it read (docs/MODEL.md, "Write gates").
CALL () {
  UNWIND $threads AS row
  CREATE (t:Thread)
  SET t = row.props, t.workspace = $workspace, t.version = 0
  FOREACH (k IN keys(row.times) | SET t[k] = datetime(row.times[k]))
  WITH t, row
  OPTIONAL MATCH (g:WriteGate {scope: $workspace, slot: $gate})
  SET t.gateSlot = g.slot, t.gateSeq = g.seq
  WITH t, row
  OPTIONAL MATCH (p:Thread {id: t.parentId, workspace: $workspace})
  FOREACH (_ IN CASE WHEN p IS NOT NULL AND t.relationshipToParent = 'FORK' THEN [1] ELSE [] END |
    CREATE (p)-[:FORK {sourceRunOrdinal: row.sourceRunOrdinal, sourceItemIndex: row.sourceItemIndex}]->(t))
  FOREACH (_ IN CASE WHEN p IS NOT NULL AND t.relationshipToParent = 'SUBAGENT' THEN [1] ELSE [] END |
    CREATE (p)-[:SUBAGENT {sourceRunOrdinal: row.sourceRunOrdinal, sourceItemIndex: row.sourceItemIndex}]->(t))
  FOREACH (_ IN CASE WHEN p IS NOT NULL AND t.relationshipToParent = 'SIDE' THEN [1] ELSE [] END |
    CREATE (p)-[:SIDE {sourceRunOrdinal: row.sourceRunOrdinal, sourceItemIndex: row.sourceItemIndex}]->(t))
}
CALL () {
  UNWIND $providerThreads AS p
  MATCH (t:Thread {id: p.props.threadId, workspace: $workspace})
  CREATE (pt:ProviderThread)
  SET pt = p.props, pt.workspace = $workspace
  FOREACH (k IN keys(p.times) | SET pt[k] = datetime(p.times[k]))
  CREATE (t)-[:HAS_PROVIDER_THREAD]->(pt)
  WITH pt
  OPTIONAL MATCH (src:ProviderThread {id: pt.forkedFromId, workspace: $workspace})
  FOREACH (_ IN CASE WHEN src IS NULL THEN [] ELSE [1] END | CREATE (pt)-[:FORKED_FROM]->(src))
}
CALL () {
  UNWIND $handoffs AS h
  MATCH (t:Thread {id: h.props.threadId, workspace: $workspace})
  MATCH (src:Thread {id: h.props.sourceThreadId, workspace: $workspace})
  CREATE (n:ContextHandoff)
  SET n = h.props, n.workspace = $workspace
  FOREACH (k IN keys(h.times) | SET n[k] = datetime(h.times[k]))
  CREATE (n)-[:FOR_THREAD]->(t)
  CREATE (n)-[:SOURCE_THREAD]->(src)
  WITH n, src
  CALL (n) {
    MATCH (to:ProviderThread {id: n.toProviderThreadId, workspace: $workspace})
    CREATE (n)-[:DELIVERED_TO]->(to)
  }
  CALL (n) {
    UNWIND n.fromProviderThreadIds AS fromId
    MATCH (from:ProviderThread {id: fromId, workspace: $workspace})
    CREATE (n)-[:FROM_PROVIDER_THREAD]->(from)
  }
  CALL (n, src) {
    MATCH (r:Run {workspace: $workspace, threadId: src.id})
    WHERE n.coveredFrom <= r.ordinal <= n.coveredTo AND r.status <> 'ROLLED_BACK'
    CREATE (n)-[:COVERS]->(r)
  }
  CALL (n) {
    MATCH (x:ContextTransfer {id: n.transferId, workspace: $workspace})
    CREATE (x)-[:PRODUCED]->(n)
  }
  // A prepared handoff (prepareHandoff, or a text submitted over one): its thread keeps
  // it, for the next start on its provider to find.
  CALL (n) {
    WITH n WHERE n.preparedFor IS NOT NULL
    MATCH (t:Thread {id: n.threadId, workspace: $workspace})
    CREATE (t)-[:PREPARED]->(n)
  }
}
CALL () {
  UNWIND $runs AS row
  MATCH (t:Thread {id: row.props.threadId, workspace: $workspace})
  MATCH (pt:ProviderThread {id: row.props.providerThreadId, workspace: $workspace})
  CREATE (r:Run)
  SET r = row.props, r.workspace = $workspace
  FOREACH (k IN keys(row.times) | SET r[k] = datetime(row.times[k]))
  CREATE (t)-[:HAS_RUN]->(r)
  CREATE (r)-[:EXECUTED_ON]->(pt)
  WITH r, row
  UNWIND row.handoffIds AS handoffId
  MATCH (h:ContextHandoff {id: handoffId, workspace: $workspace})
  CREATE (r)-[:CONSUMED]->(h)
}
CALL () {
  UNWIND $runMoves AS move
  MATCH (r:Run {id: move.runId, workspace: $workspace})-[old:EXECUTED_ON]->(:ProviderThread)
  MATCH (pt:ProviderThread {id: move.providerThreadId, workspace: $workspace})
  DELETE old
  CREATE (r)-[:EXECUTED_ON]->(pt)
  WITH r, move
  UNWIND move.handoffIds AS handoffId
  MATCH (h:ContextHandoff {id: handoffId, workspace: $workspace})
  CREATE (r)-[:CONSUMED]->(h)
}
CALL () {
  UNWIND $runContents AS content
  MATCH (r:Run {id: content.runId, workspace: $workspace})
  CALL (r, content) {
    UNWIND content.items AS item
    CREATE (i:RunItem)
    SET i = item.props, i.workspace = $workspace
    FOREACH (k IN keys(item.times) | SET i[k] = datetime(item.times[k]))
    CREATE (r)-[:HAS_ITEM]->(i)
  }
  CALL (r, content) {
    UNWIND content.checkpoints AS checkpoint
    CREATE (c:Checkpoint)
    SET c = checkpoint.props, c.workspace = $workspace
    FOREACH (k IN keys(checkpoint.times) | SET c[k] = datetime(checkpoint.times[k]))
    CREATE (r)-[:HAS_CHECKPOINT]->(c)
  }
}
CALL () {
  UNWIND $transfers AS x
  MATCH (src:Thread {id: x.props.sourceThreadId, workspace: $workspace})
  MATCH (dst:Thread {id: x.props.targetThreadId, workspace: $workspace})
  CREATE (n:ContextTransfer)
  SET n = x.props, n.workspace = $workspace
  FOREACH (k IN keys(x.times) | SET n[k] = datetime(x.times[k]))
  CREATE (n)-[:FROM_THREAD]->(src)
  CREATE (n)-[:TO_THREAD]->(dst)
  WITH n, x
  CALL (n, x) {
    MATCH (r:Run {id: x.sourceRunId, workspace: $workspace})
    CREATE (n)-[:SOURCE_RUN]->(r)
  }
  CALL (n, x) {
    MATCH (c:Checkpoint {id: x.sourceCheckpointId, workspace: $workspace})
    CREATE (n)-[:SOURCE_CHECKPOINT]->(c)
  }
  CALL (n, x) {
    MATCH (r:Run {id: x.baseRunId, workspace: $workspace})
    CREATE (n)-[:BASE_RUN]->(r)
  }
  CALL (n, x) {
    MATCH (r:Run {id: n.spawnedByRunId, workspace: $workspace})
    CREATE (r)-[:SPAWNED]->(n)
  }
  CALL (n) {
    MATCH (pt:ProviderThread {id: n.resolvedProviderThreadId, workspace: $workspace})
    CREATE (n)-[:RESOLVED_TO]->(pt)
  }
}
CALL () {
  UNWIND $threadChanges AS change
  MATCH (t:Thread {id: change.id, workspace: $workspace})
  SET t.historyJson = CASE WHEN any(k IN keys(change.tracked) WHERE t[k] IS NULL OR t[k] <> change.tracked[k])
    THEN coalesce(t.historyJson, []) + [change.entry] ELSE t.historyJson END
  SET t += change.props
  FOREACH (k IN keys(change.times) | SET t[k] = datetime(change.times[k]))
}
CALL () {
  UNWIND $providerThreadChanges AS change
  MATCH (pt:ProviderThread {id: change.id, workspace: $workspace})
  SET pt.historyJson = CASE WHEN any(k IN keys(change.tracked) WHERE pt[k] IS NULL OR pt[k] <> change.tracked[k])
    THEN coalesce(pt.historyJson, []) + [change.entry] ELSE pt.historyJson END
  SET pt += change.props
  FOREACH (k IN keys(change.times) | SET pt[k] = datetime(change.times[k]))
}
CALL () {
  UNWIND $runChanges AS change
  MATCH (r:Run {id: change.id, workspace: $workspace})
  SET r.historyJson = CASE WHEN any(k IN keys(change.tracked) WHERE r[k] IS NULL OR r[k] <> change.tracked[k])
    THEN coalesce(r.historyJson, []) + [change.entry] ELSE r.historyJson END
  SET r += change.props
  FOREACH (k IN keys(change.times) | SET r[k] = datetime(change.times[k]))
}
CALL () {
  UNWIND $handoffChanges AS change
  MATCH (h:ContextHandoff {id: change.id, workspace: $workspace})
  SET h.historyJson = CASE WHEN any(k IN keys(change.tracked) WHERE h[k] IS NULL OR h[k] <> change.tracked[k])
    THEN coalesce(h.historyJson, []) + [change.entry] ELSE h.historyJson END
  SET h += change.props
  FOREACH (k IN keys(change.times) | SET h[k] = datetime(change.times[k]))
  WITH h, change
  CALL (h, change) {
    MATCH (next:ContextHandoff {id: change.props.supersededById, workspace: $workspace})
    MERGE (h)-[:SUPERSEDED_BY]->(next)
  }
  // A prepared handoff a start injects goes into the start's provider thread.
  CALL (h, change) {
    MATCH (to:ProviderThread {id: change.props.toProviderThreadId, workspace: $workspace})
    MERGE (h)-[:DELIVERED_TO]->(to)
  }
}
CALL () {
  UNWIND $transferChanges AS change
  MATCH (x:ContextTransfer {id: change.id, workspace: $workspace})
  SET x.historyJson = CASE WHEN any(k IN keys(change.tracked) WHERE x[k] IS NULL OR x[k] <> change.tracked[k])
    THEN coalesce(x.historyJson, []) + [change.entry] ELSE x.historyJson END
  SET x += change.props
  FOREACH (k IN keys(change.times) | SET x[k] = datetime(change.times[k]))
  WITH x, change
  CALL (x, change) {
    MATCH (pt:ProviderThread {id: change.props.resolvedProviderThreadId, workspace: $workspace})
    OPTIONAL MATCH (x)-[old:RESOLVED_TO]->()
    DELETE old
    CREATE (x)-[:RESOLVED_TO]->(pt)
  }
  CALL (x, change) {
    MATCH (r:Run {id: change.props.consumedByRunId, workspace: $workspace})
    MERGE (r)-[:CONSUMED_TRANSFER]->(x)
  }
}
CALL () {
  UNWIND $limits AS row
  CREATE (l:ProviderLimit)
  SET l = row.props, l.workspace = $workspace
  FOREACH (k IN keys(row.times) | SET l[k] = datetime(row.times[k]))
  WITH l
  OPTIONAL MATCH (g:WriteGate {scope: $workspace, slot: $gate})
  SET l.gateSlot = g.slot, l.gateSeq = g.seq
}
CALL () {
  UNWIND $limitChanges AS change
  MATCH (l:ProviderLimit {id: change.id, workspace: $workspace})
  SET l += change.props
  FOREACH (k IN keys(change.times) | SET l[k] = datetime(change.times[k]))
  WITH l
  OPTIONAL MATCH (g:WriteGate {scope: $workspace, slot: $gate})
  SET l.gateSlot = g.slot, l.gateSeq = g.seq
}
CALL () {
  // Events get consecutive per-thread sequence numbers under the thread's lock.
  UNWIND $eventGroups AS group
  MATCH (t:Thread {id: group.threadId, workspace: $workspace})
  WITH t, group, coalesce(t.eventSeq, 0) AS base
  UNWIND range(0, size(group.events) - 1) AS i
  WITH t, base, i, group.events[i] AS event
  CREATE (e:ThreadEvent)
  SET e = event.props, e.seq = base + i + 1, e.threadId = t.id, e.workspace = $workspace
  FOREACH (k IN keys(event.times) | SET e[k] = datetime(event.times[k]))
  CREATE (t)-[:HAS_EVENT]->(e)
  WITH t, max(e.seq) AS last
  SET t.eventSeq = last
}
CALL () {
  UNWIND $receipts AS receipt
  CREATE (c:CommandReceipt)
  SET c = receipt.props, c.workspace = $workspace
  FOREACH (k IN keys(receipt.times) | SET c[k] = datetime(receipt.times[k]))
  WITH c
  OPTIONAL MATCH (g:WriteGate {scope: $workspace, slot: $gate})
  SET c.gateSlot = g.slot, c.gateSeq = g.seq
}
RETURN true AS applied
