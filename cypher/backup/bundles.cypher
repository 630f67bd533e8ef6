// The bundles of some threads (docs/MODEL.md, "Snapshots"): each thread with its runs,
// their items and checkpoints, its provider threads and events, the handoffs it consumes
// (FOR_THREAD) and the transfers into it (TO_THREAD); every node once, then every
// relationship from it to a node of the workspace. Each row names its node's snapshot key
// parts (graph/snapshot.py, `export_key`): labels and id, a receipt's commandId, a run
// item's position and the node it hangs off. Streamed: the backup keeps nothing in memory.
// Properties come as [key, value] pairs, a datetime with an offset as [key, epochSeconds,
// nanosecond, offsetSeconds] (graph/snapshot.py, `from_pairs`): the driver's conversion of
// each datetime cost about a third of a backup's CPU.
UNWIND $threadIds AS threadId
MATCH (t:Thread {workspace: $workspace, id: threadId})
CALL (t) {
  RETURN t AS n
  UNION
  MATCH (t)-[:HAS_RUN]->(n:Run) RETURN n
  UNION
  MATCH (t)-[:HAS_RUN]->(:Run)-[:HAS_ITEM|HAS_CHECKPOINT]->(n) RETURN n
  UNION
  MATCH (t)-[:HAS_PROVIDER_THREAD|HAS_EVENT]->(n) RETURN n
  UNION
  MATCH (n:ContextHandoff)-[:FOR_THREAD]->(t) RETURN n
  UNION
  MATCH (n:ContextTransfer)-[:TO_THREAD]->(t) RETURN n
}
WITH t, n WHERE n.workspace = $workspace
CALL (n) {
  RETURN null AS type, null AS m, [k IN keys(n) | CASE WHEN valueType(n[k]) STARTS WITH 'ZONED DATETIME'
    AND NOT toString(n[k]) ENDS WITH ']' AND 1 <= n[k].year <= 9999
    THEN [k, n[k].epochSeconds, n[k].nanosecond, n[k].offsetSeconds] ELSE [k, n[k]] END] AS props
  UNION ALL
  MATCH (n)-[r]->(m) WHERE m.workspace = $workspace
  RETURN type(r) AS type, m, [k IN keys(r) | CASE WHEN valueType(r[k]) STARTS WITH 'ZONED DATETIME'
    AND NOT toString(r[k]) ENDS WITH ']' AND 1 <= r[k].year <= 9999
    THEN [k, r[k].epochSeconds, r[k].nanosecond, r[k].offsetSeconds] ELSE [k, r[k]] END] AS props
}
RETURN t.id AS bundle, type, props, {
  labels: labels(n), id: n.id, commandId: n.commandId, seq: n.seq, element: elementId(n),
  owner: CASE WHEN n.id IS NULL THEN
    COLLECT { MATCH (o)-->(n) WHERE o.id IS NOT NULL RETURN o.id ORDER BY o.id }[0] END
} AS ref, CASE WHEN m IS NULL THEN null ELSE {
  labels: labels(m), id: m.id, commandId: m.commandId, seq: m.seq, element: elementId(m),
  owner: CASE WHEN m.id IS NULL THEN
    COLLECT { MATCH (o)-->(m) WHERE o.id IS NOT NULL RETURN o.id ORDER BY o.id }[0] END
} END AS end
