// A run and the id of its thread, before the thread's lock is taken.
MATCH (t:Thread)-[:HAS_RUN]->(r:Run {id: $runId, workspace: $workspace})
RETURN t.id AS threadId, r {.*} AS run
