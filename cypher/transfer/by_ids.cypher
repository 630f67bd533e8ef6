UNWIND $ids AS id
MATCH (x:ContextTransfer {id: id, workspace: $workspace})
RETURN id AS key, x {.*} AS value
