// Every node of one workspace (every node the service writes carries `workspace`), with
// what its snapshot key is made of (graph/snapshot.py, `export_key`): its labels and id,
// a receipt's commandId, a run item's position and the node it hangs off. Streamed, in no
// order: the backup keeps nothing in memory.
MATCH (n) WHERE n.workspace = $workspace
RETURN {
  labels: labels(n), id: n.id, commandId: n.commandId, seq: n.seq, element: elementId(n),
  owner: CASE WHEN n.id IS NULL THEN
    COLLECT { MATCH (o)-->(n) WHERE o.id IS NOT NULL RETURN o.id ORDER BY o.id }[0] END
} AS ref, properties(n) AS props
