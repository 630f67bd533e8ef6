// description: Handoff quality by summary source: how much of what must survive a handoff its text carries, and how much of its covered material it shows whole, for local, provider-written, configured and person-written summaries.
// param workspace: string — the workspace to read
// param includeSuperseded: bool = false — also count handoffs later superseded
//
// One row per source of the delivered summaries (READY, and SUPERSEDED when asked); a
// summary the local summarizer wrote in place of its source (`fallbackReason` set) is
// counted under "<source> (local fallback)". `graded` are those that recorded their
// quality when their text was written (handoffs written before quality was recorded
// answer it through GraphQL only); `meanScore` and `minScore` are over them, `perfect`
// counts the scores of 1.0. The score is kept / total over the must-keep facets
// (docs/MODEL.md, "Handoff quality"); the fidelity is the share, by tokens, of the covered
// material the text shows whole ("Faithful handoffs"), over the handoffs that recorded it
// (`withFidelity`): a text can keep every goal and decision (score 1.0) and still drop the
// conversation it had room for.
MATCH (h:ContextHandoff {workspace: $workspace}) USING INDEX h:ContextHandoff(workspace, status)
WHERE h.status = 'READY' OR ($includeSuperseded AND h.status = 'SUPERSEDED')
WITH h, coalesce(h.summarySource, 'LOCAL') +
        CASE WHEN h.fallbackReason IS NULL THEN '' ELSE ' (local fallback)' END AS source
WITH source, count(h) AS handoffs, count(h.qualityScore) AS graded,
     avg(h.qualityScore) AS meanScore, min(h.qualityScore) AS minScore,
     count(CASE WHEN h.qualityScore = 1.0 THEN 1 END) AS perfect,
     count(h.qualityFidelity) AS withFidelity, avg(h.qualityFidelity) AS meanFidelity,
     min(h.qualityFidelity) AS minFidelity
RETURN source, handoffs, graded, round(meanScore, 3) AS meanScore,
       round(minScore, 3) AS minScore, perfect, withFidelity,
       round(meanFidelity, 3) AS meanFidelity, round(minFidelity, 3) AS minFidelity
ORDER BY source
