// description: Handoff summaries by source (local, leaving provider, entering provider, configured): how many, mean tokens and generation time, and how often the local summarizer stood in.
// param workspace: string — the workspace to read
// param includeSuperseded: bool = false — also count handoffs later superseded (their summaries were still made)
//
// One row per source asked for. `handoffs` are the delivered summaries (READY, and
// SUPERSEDED when asked); `fallbacks` those the local summarizer wrote instead because
// their source timed out, failed or answered too much (`fallbackReason` set), and
// `fallbackRate` their share of `handoffs`. `failed` counts FAILED handoffs (a provider's
// summary that never came; each was replaced by a fallback counted above) and `pending`
// those still waiting. `meanTokens` and `meanGenerationMs` are over the delivered ones;
// `cached` reused a configured summary already paid for. Handoffs written before sources
// were recorded count as LOCAL.
MATCH (h:ContextHandoff {workspace: $workspace}) USING INDEX h:ContextHandoff(workspace, status)
WHERE h.status IN ['READY', 'SUPERSEDED', 'FAILED', 'PENDING']
WITH h, coalesce(h.summarySource, 'LOCAL') AS source,
     h.status = 'READY' OR ($includeSuperseded AND h.status = 'SUPERSEDED') AS delivered
WITH source,
     count(CASE WHEN delivered THEN 1 END) AS handoffs,
     count(CASE WHEN delivered AND h.fallbackReason IS NOT NULL THEN 1 END) AS fallbacks,
     count(CASE WHEN delivered AND h.cachedFromId IS NOT NULL THEN 1 END) AS cached,
     count(CASE WHEN h.status = 'FAILED' THEN 1 END) AS failed,
     count(CASE WHEN h.status = 'PENDING' THEN 1 END) AS pending,
     avg(CASE WHEN delivered THEN h.tokenEstimate END) AS meanTokens,
     avg(CASE WHEN delivered THEN h.generationMs END) AS meanGenerationMs,
     collect(DISTINCT CASE WHEN delivered THEN h.model END) AS models
RETURN source, handoffs, fallbacks,
       CASE WHEN handoffs = 0 THEN null ELSE round(toFloat(fallbacks) / handoffs, 3) END
         AS fallbackRate,
       failed, pending, cached,
       round(meanTokens, 1) AS meanTokens, round(meanGenerationMs, 1) AS meanGenerationMs,
       models
ORDER BY source
