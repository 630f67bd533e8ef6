// description: Handoff tokens per target provider and strategy: how many, total, mean and largest.
// param workspace: string — the workspace to read
// param includeSuperseded: bool = false — also count handoffs later superseded (tokens still spent)
//
// The provider is the one the handoff was delivered to; tokens are `tokenEstimate`
// (ceil(characters / 4) of the summary text).
MATCH (h:ContextHandoff {workspace: $workspace}) USING INDEX h:ContextHandoff(workspace, status)
WHERE h.status IN CASE WHEN $includeSuperseded THEN ['READY', 'SUPERSEDED'] ELSE ['READY'] END
MATCH (h)-[:DELIVERED_TO]->(pt:ProviderThread)
RETURN pt.provider AS provider, h.strategy AS strategy, count(h) AS handoffs,
       sum(h.tokenEstimate) AS tokens, round(avg(h.tokenEstimate), 1) AS meanTokens,
       max(h.tokenEstimate) AS maxTokens
ORDER BY provider, strategy
