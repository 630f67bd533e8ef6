// Items and checkpoint of a completed run; the status change itself goes through run/update.
MATCH (r:Run {id: $runId, workspace: $workspace})
CALL (r) {
  UNWIND $items AS item
  CREATE (i:RunItem)
  SET i = item, i.workspace = $workspace
  CREATE (r)-[:HAS_ITEM]->(i)
}
CALL (r) {
  UNWIND $checkpoints AS checkpoint
  CREATE (c:Checkpoint)
  SET c = checkpoint, c.workspace = $workspace
  CREATE (r)-[:HAS_CHECKPOINT]->(c)
}
RETURN r.id AS id
