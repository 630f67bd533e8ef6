// Bulk: runs with where they executed, their items and their checkpoint.
UNWIND $rows AS row
MATCH (t:Thread {workspace: $workspace, id: row.props.threadId})
MATCH (pt:ProviderThread {id: row.props.providerThreadId, workspace: $workspace})
CREATE (t)-[:HAS_RUN]->(r:Run)
SET r = row.props
CREATE (r)-[:EXECUTED_ON]->(pt)
WITH r, row
CALL (r, row) {
  UNWIND row.items AS item
  CREATE (r)-[:HAS_ITEM]->(i:RunItem)
  SET i = item
}
CALL (r, row) {
  UNWIND row.checkpoints AS checkpoint
  CREATE (r)-[:HAS_CHECKPOINT]->(c:Checkpoint)
  SET c = checkpoint
}
