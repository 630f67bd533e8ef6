// Baseline read: the rows of `lineage(threadId, direction: BOTH, depth: 20) { nodes {
// depth thread { id title } } edges { from to relationship sourceRunOrdinal } }`.
// The hop bound is fixed at 20 (bench.measure.LINEAGE_DEPTH): no text is substituted.
MATCH (t:Thread {id: $threadId, workspace: $workspace})
CALL (t) {
  MATCH p = (n:Thread)-[:FORK|SUBAGENT*0..20]->(t)
  RETURN n, length(p) AS depth
  UNION
  MATCH p = (t)-[:FORK|SUBAGENT*0..20]->(n:Thread)
  RETURN n, length(p) AS depth
}
WITH n, min(depth) AS depth
ORDER BY depth, n.createdAt, n.id
WITH collect({depth: depth, thread: {id: n.id, title: n.title}}) AS nodes, collect(n) AS members
RETURN nodes,
  COLLECT {
    UNWIND members AS x
    MATCH (x)-[r:FORK|SUBAGENT]->(y:Thread)
    WHERE y IN members
    RETURN {from: x.id, to: y.id, relationship: type(r), sourceRunOrdinal: r.sourceRunOrdinal}
      AS edge
    ORDER BY y.createdAt, y.id
  } AS edges
