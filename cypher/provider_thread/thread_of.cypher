MATCH (t:Thread)-[:HAS_PROVIDER_THREAD]->(:ProviderThread {id: $providerThreadId, workspace: $workspace})
RETURN t.id AS threadId
