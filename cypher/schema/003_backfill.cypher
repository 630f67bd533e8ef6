// Values the service keeps as runs end and threads roll back, computed once for data
// written before it kept them (idempotent: only where they are missing). See docs/MODEL.md.
// Ordinals of a thread's rolled-back runs, as flattened ranges.
MATCH (t:Thread) WHERE t.rolledBack IS NULL
CALL (t) {
  MATCH (t)-[:HAS_RUN]->(r:Run {status: 'ROLLED_BACK'})
  WITH r.ordinal AS ordinal ORDER BY ordinal
  RETURN collect(ordinal) AS ordinals
}
SET t.rolledBack = reduce(acc = [], o IN ordinals |
  CASE WHEN size(acc) > 0 AND acc[-1] = o - 1 THEN acc[0..-1] + [o] ELSE acc + [o, o] END);
// Ordinals of the history runs each provider thread ran, as flattened ranges.
MATCH (pt:ProviderThread) WHERE pt.nativeRanges IS NULL
CALL (pt) {
  MATCH (pt)<-[:EXECUTED_ON]-(r:Run)
  WHERE r.status IN ['COMPLETED', 'FAILED', 'INTERRUPTED']
  WITH r.ordinal AS ordinal ORDER BY ordinal
  RETURN collect(ordinal) AS ordinals
}
SET pt.nativeRanges = reduce(acc = [], o IN ordinals |
  CASE WHEN size(acc) > 0 AND acc[-1] = o - 1 THEN acc[0..-1] + [o] ELSE acc + [o, o] END);
// Each run's delta chain: its provider thread's runs (not rolled back), oldest first, each
// one more than the one before when it consumed a delta handoff delivered there, else 0.
MATCH (pt:ProviderThread)
WHERE EXISTS { MATCH (pt)<-[:EXECUTED_ON]-(r:Run) WHERE r.deltaChain IS NULL }
CALL (pt) {
  MATCH (pt)<-[:EXECUTED_ON]-(r:Run)
  WHERE r.status <> 'ROLLED_BACK'
  WITH r ORDER BY r.ordinal
  WITH collect({run: r, delta: EXISTS {
    MATCH (r)-[:CONSUMED]->(:ContextHandoff {strategy: 'DELTA_SINCE_TARGET_LAST_SEEN'})
          -[:DELIVERED_TO]->(pt)
  }}) AS runs
  WITH runs, reduce(chains = [], x IN runs |
    chains + [CASE WHEN x.delta THEN coalesce(chains[-1], 0) + 1 ELSE 0 END]) AS chains
  UNWIND range(0, size(runs) - 1) AS i
  WITH runs[i].run AS r, chains[i] AS chain
  SET r.deltaChain = chain
};
MATCH (r:Run) WHERE r.deltaChain IS NULL
SET r.deltaChain = 0;
// Who wrote each handoff's summary, for handoffs written before the service recorded it:
// the local summarizer, else the provider that submitted it (the entering provider when
// it is the one the handoff went to, else the provider being left).
MATCH (h:ContextHandoff) WHERE h.summarySource IS NULL
OPTIONAL MATCH (h)-[:DELIVERED_TO]->(pt:ProviderThread)
SET h.summarySource = CASE
  WHEN h.createdByProvider IS NULL THEN 'LOCAL'
  WHEN h.createdByProvider = pt.provider THEN 'ENTERING_PROVIDER'
  ELSE 'LEAVING_PROVIDER' END
