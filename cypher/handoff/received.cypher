UNWIND $ids AS id
MATCH (h:ContextHandoff {workspace: $workspace})-[:DELIVERED_TO]->(:ProviderThread {id: id, workspace: $workspace})
RETURN id AS key, h {.*} AS value
ORDER BY h.createdAt, h.id
