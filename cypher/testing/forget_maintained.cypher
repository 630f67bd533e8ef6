// Test suites only: the graph as a version before the kept ranges, chains and digests
// wrote it, to prove the backfill (schema/003_backfill.cypher) restores them.
CALL () { MATCH (t:Thread) REMOVE t.rolledBack }
CALL () { MATCH (pt:ProviderThread) REMOVE pt.nativeRanges }
CALL () { MATCH (r:Run) REMOVE r.deltaChain, r.digestJson, r.digestVersion }
CALL () { MATCH (h:ContextHandoff) REMOVE h.summarySource }
RETURN true AS forgotten
