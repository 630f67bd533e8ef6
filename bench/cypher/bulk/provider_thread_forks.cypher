// Bulk: native forks of provider threads (written after every provider thread exists).
UNWIND $rows AS row
MATCH (pt:ProviderThread {id: row.id, workspace: $workspace})
MATCH (src:ProviderThread {id: row.forkedFromId, workspace: $workspace})
CREATE (pt)-[:FORKED_FROM]->(src)
