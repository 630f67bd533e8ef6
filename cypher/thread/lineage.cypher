// Threads within {{hops}} parent->child hops of the thread, in the asked direction,
// each once with its distance, then the lineage edges among them. Lineage is a tree,
// so each node has one path; the expansion grows with the answer, not the graph. The far
// ends carry no label (FORK, SUBAGENT and SIDE only join threads): with one, the planner
// may start from a scan of every thread and expand into t, which grows with the graph.
// Side threads (SIDE) below the thread are not walked into unless $includeSide; the
// thread's own ancestors are its lineage whatever joins them (a side thread asked about
// shows where it came from). The predicate on the path's relationships prunes the
// expansion as it goes, so a family's side threads cost nothing when left out.
// The index hint keeps a plan made on a tiny graph (a new database, a young workspace)
// from starting with a scan of every thread, which the plan cache keeps as it grows.
// {{hops}} is the only text substituted: a clamped int (graph/queries.py).
MATCH (t:Thread {id: $threadId, workspace: $workspace})
USING INDEX t:Thread(workspace, id)
CALL (t) {
  WITH t WHERE $direction IN ['ANCESTORS', 'BOTH']
  MATCH p = (n)-[:FORK|SUBAGENT|SIDE*0..{{hops}}]->(t)
  RETURN n, length(p) AS depth
  UNION
  WITH t WHERE $direction IN ['DESCENDANTS', 'BOTH']
  MATCH p = (t)-[:FORK|SUBAGENT|SIDE*0..{{hops}}]->(n)
  WHERE $includeSide OR none(r IN relationships(p) WHERE type(r) = 'SIDE')
  RETURN n, length(p) AS depth
}
WITH n, min(depth) AS depth
ORDER BY depth, n.createdAt, n.id
WITH collect({thread: n {.*}, depth: depth}) AS nodes, collect(n) AS members
RETURN nodes,
  COLLECT {
    UNWIND members AS x
    MATCH (x)-[r:FORK|SUBAGENT|SIDE]->(y)
    WHERE y IN members
    RETURN {from: x.id, to: y.id, relationship: type(r), sourceRunOrdinal: r.sourceRunOrdinal,
            sourceItemIndex: r.sourceItemIndex}
      AS edge
    ORDER BY y.createdAt, y.id
  } AS edges
