// The handoffs prepared for each thread's next starts (prepareHandoff, and texts submitted
// over them), injected, superseded or still waiting: the caller keeps those it asks for.
UNWIND $ids AS id
MATCH (:Thread {id: id, workspace: $workspace})-[:PREPARED]->(h:ContextHandoff)
RETURN id AS key, h {.*} AS value
ORDER BY h.createdAt, h.id
