UNWIND $ids AS id
MATCH (c:Checkpoint {id: id, workspace: $workspace})
RETURN id AS key, c {.*} AS value
