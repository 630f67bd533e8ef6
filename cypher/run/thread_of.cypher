MATCH (t:Thread)-[:HAS_RUN]->(r:Run {id: $runId, workspace: $workspace})
RETURN t.id AS threadId
