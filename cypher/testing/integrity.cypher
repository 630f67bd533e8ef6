// Test suites only: shapes a half-applied write would leave behind.
RETURN
  COUNT { MATCH (r:Run) WHERE NOT (r)-[:EXECUTED_ON]->(:ProviderThread) } AS runsWithoutProviderThread,
  COUNT { MATCH (h:ContextHandoff) WHERE NOT (h)-[:DELIVERED_TO]->(:ProviderThread) }
    AS handoffsWithoutTarget,
  COUNT { MATCH (h:ContextHandoff) WHERE h.coveredTo > 0 AND NOT (h)-[:COVERS]->(:Run) }
    AS handoffsWithoutCoverage,
  COUNT { MATCH (a:Run), (b:Run) WHERE a.workspace = b.workspace AND a.threadId = b.threadId AND a.ordinal = b.ordinal
          AND a.id < b.id } AS duplicateOrdinals
