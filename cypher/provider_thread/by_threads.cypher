UNWIND $ids AS id
MATCH (:Thread {id: id, workspace: $workspace})-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
RETURN id AS key, pt {.*} AS value
ORDER BY pt.createdAt, pt.id
