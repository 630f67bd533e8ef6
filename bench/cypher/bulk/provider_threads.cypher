// Bulk: provider threads under their app thread.
UNWIND $rows AS row
MATCH (t:Thread {workspace: $workspace, id: row.props.threadId})
CREATE (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
SET pt = row.props
