UNWIND $ids AS id
MATCH (pt:ProviderThread {id: id, workspace: $workspace})
RETURN id AS key, pt {.*} AS value
