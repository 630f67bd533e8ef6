// Threads within {{hops}} parent->child hops of the thread, in the asked direction,
// each once with its distance, then the lineage edges among them. Lineage is a tree,
// so each node has one path; the expansion grows with the answer, not the graph. The far
// ends carry no label (FORK and SUBAGENT only join threads): with one, the planner may
// start from a scan of every thread and expand into t, which grows with the graph.
// The index hint keeps a plan made on a tiny graph (a new database, a young workspace)
// from starting with a scan of every thread, which the plan cache keeps as it grows.
// {{hops}} is the only text substituted: a clamped int (graph/queries.py).
MATCH (t:Thread {id: $threadId, workspace: $workspace})
USING INDEX t:Thread(workspace, id)
CALL (t) {
  WITH t WHERE $direction IN ['ANCESTORS', 'BOTH']
  MATCH p = (n)-[:FORK|SUBAGENT*0..{{hops}}]->(t)
  RETURN n, length(p) AS depth
  UNION
  WITH t WHERE $direction IN ['DESCENDANTS', 'BOTH']
  MATCH p = (t)-[:FORK|SUBAGENT*0..{{hops}}]->(n)
  RETURN n, length(p) AS depth
}
WITH n, min(depth) AS depth
ORDER BY depth, n.createdAt, n.id
WITH collect({thread: n {.*}, depth: depth}) AS nodes, collect(n) AS members
RETURN nodes,
  COLLECT {
    UNWIND members AS x
    MATCH (x)-[r:FORK|SUBAGENT]->(y)
    WHERE y IN members
    RETURN {from: x.id, to: y.id, relationship: type(r), sourceRunOrdinal: r.sourceRunOrdinal}
      AS edge
    ORDER BY y.createdAt, y.id
  } AS edges
