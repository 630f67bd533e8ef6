UNWIND $ids AS id
MATCH (t:Thread {id: id, workspace: $workspace})
RETURN t.id AS key, t {.*} AS value
