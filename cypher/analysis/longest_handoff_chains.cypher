// description: The longest handoff chains: context summarised, injected, then summarised onward again.
// param workspace: string — the workspace to read
// param limit: int = 10 — at most this many chains, longest first
//
// Handoff a links to handoff b when b summarises runs of the provider thread a was
// delivered to and b was made after a: what a carried reached b's target second-hand.
// Only READY handoffs count (a superseded one was replaced). Chains are maximal (nothing
// feeds their first handoff, nothing follows their last) and at most 10 links long.
MATCH (first:ContextHandoff {workspace: $workspace, status: 'READY'})
USING INDEX first:ContextHandoff(workspace, status)
WHERE NOT EXISTS {
  MATCH (first)-[:FROM_PROVIDER_THREAD]->(:ProviderThread)<-[:DELIVERED_TO]-(before:ContextHandoff)
  WHERE before.status = 'READY' AND before.createdAt < first.createdAt
}
WITH first
MATCH (first)
      ((a:ContextHandoff)-[:DELIVERED_TO]->(via:ProviderThread)<-[:FROM_PROVIDER_THREAD]-(b:ContextHandoff)
       WHERE b.status = 'READY' AND b.createdAt > a.createdAt){1,10}
      (last)  // no label: the chain is walked from `first`, never from every handoff
WHERE NOT EXISTS {
  MATCH (last)-[:DELIVERED_TO]->(:ProviderThread)<-[:FROM_PROVIDER_THREAD]-(after:ContextHandoff)
  WHERE after.status = 'READY' AND after.createdAt > last.createdAt
}
MATCH (last)-[:DELIVERED_TO]->(end:ProviderThread)
RETURN size(b) + 1 AS handoffs,
       [first.id] + [h IN b | h.id] AS chain,
       [pt IN via | pt.provider] + [end.provider] AS providers,
       first.threadId AS firstThread, last.threadId AS lastThread
ORDER BY handoffs DESC, chain
LIMIT $limit
