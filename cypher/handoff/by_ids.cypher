UNWIND $ids AS id
MATCH (h:ContextHandoff {id: id, workspace: $workspace})
RETURN id AS key, h {.*} AS value
