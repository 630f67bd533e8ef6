// Imported tool outputs were keyed by their tool's name alone (`Bash`), so in a summary
// every earlier output of a tool counted as superseded by its latest one, and a failing
// test run's output never reached a handoff. An import now keys an output by what it
// answers, `<tool>:<call id>` (or `<tool>:<path>` for a read); the call ids of sessions
// imported before were not kept, so each of their outputs is keyed by its own place,
// `<tool>:<run id>/<index>`, which nothing supersedes. The run's digest held the old keys:
// it is dropped, and summaries read the run itself (docs/MODEL.md "Session import").
// Idempotent: every key of the new kind holds a colon. Only imported sessions' runs are
// read (their provider threads carry a sessionKey).
MATCH (pt:ProviderThread)
WHERE pt.workspace IS NOT NULL AND pt.sessionKey IS NOT NULL
MATCH (pt)<-[:EXECUTED_ON]-(r:Run)
WHERE r.importKey IS NOT NULL
CALL (r) {
  MATCH (r)-[:HAS_ITEM]->(i:RunItem)
  WHERE i.kind = 'TOOL_OUTPUT' AND i.key IS NOT NULL AND NOT i.key CONTAINS ':'
  SET i.key = i.key + ':' + r.id + '/' + toString(i.seq)
  RETURN count(i) AS rekeyed
}
WITH r, rekeyed
WHERE rekeyed > 0
REMOVE r.digestJson, r.digestVersion
