UNWIND $providerThreads AS p
MATCH (t:Thread {id: p.threadId, workspace: $workspace})
CREATE (pt:ProviderThread)
SET pt = p, pt.workspace = $workspace
CREATE (t)-[:HAS_PROVIDER_THREAD]->(pt)
WITH pt, p
CALL (pt, p) {
  MATCH (src:ProviderThread {id: p.forkedFromId, workspace: $workspace})
  CREATE (pt)-[:FORKED_FROM]->(src)
}
RETURN pt.id AS id
