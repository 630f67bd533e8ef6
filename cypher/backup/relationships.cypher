// Every relationship between two nodes of one workspace, with its ends' key parts (as in
// backup/nodes) and its properties. Streamed, in no order.
MATCH (a) WHERE a.workspace = $workspace
MATCH (a)-[r]->(b) WHERE b.workspace = $workspace
RETURN {
  labels: labels(a), id: a.id, commandId: a.commandId, seq: a.seq, element: elementId(a),
  owner: CASE WHEN a.id IS NULL THEN
    COLLECT { MATCH (o)-->(a) WHERE o.id IS NOT NULL RETURN o.id ORDER BY o.id }[0] END
} AS start, type(r) AS type, {
  labels: labels(b), id: b.id, commandId: b.commandId, seq: b.seq, element: elementId(b),
  owner: CASE WHEN b.id IS NULL THEN
    COLLECT { MATCH (o)-->(b) WHERE o.id IS NOT NULL RETURN o.id ORDER BY o.id }[0] END
} AS end, properties(r) AS props
