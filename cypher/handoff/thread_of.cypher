MATCH (h:ContextHandoff {id: $handoffId, workspace: $workspace})-[:FOR_THREAD]->(t:Thread)
RETURN t.id AS threadId
