// description: Handoff quality by summary source: how much of what must survive a handoff its text carries, for local, provider-written and configured summaries.
// param workspace: string — the workspace to read
// param includeSuperseded: bool = false — also count handoffs later superseded
//
// One row per source of the delivered summaries (READY, and SUPERSEDED when asked); a
// summary the local summarizer wrote in place of its source (`fallbackReason` set) is
// counted under "<source> (local fallback)". `graded` are those that recorded their
// quality when their text was written (handoffs written before quality was recorded
// answer it through GraphQL only); `meanScore` and `minScore` are over them, `perfect`
// counts the scores of 1.0. The score is kept / total over the must-keep facets
// (docs/MODEL.md, "Handoff quality").
MATCH (h:ContextHandoff {workspace: $workspace}) USING INDEX h:ContextHandoff(workspace, status)
WHERE h.status = 'READY' OR ($includeSuperseded AND h.status = 'SUPERSEDED')
WITH h, coalesce(h.summarySource, 'LOCAL') +
        CASE WHEN h.fallbackReason IS NULL THEN '' ELSE ' (local fallback)' END AS source
WITH source, count(h) AS handoffs, count(h.qualityScore) AS graded,
     avg(h.qualityScore) AS meanScore, min(h.qualityScore) AS minScore,
     count(CASE WHEN h.qualityScore = 1.0 THEN 1 END) AS perfect
RETURN source, handoffs, graded, round(meanScore, 3) AS meanScore,
       round(minScore, 3) AS minScore, perfect
ORDER BY source
