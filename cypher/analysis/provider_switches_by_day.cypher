// description: Provider switches per day and direction (e.g. codex → claude), with the threads involved.
// param workspace: string — the workspace to read
// param days: int = 30 — how many days back from today (UTC)
//
// Same rule as provider_switches_by_thread; a switch counts on the day its run started.
MATCH (t:Thread {workspace: $workspace}) USING INDEX t:Thread(workspace)
CALL (t) {
  MATCH (t)-[:HAS_RUN]->(r:Run)
  WHERE r.status <> 'ROLLED_BACK'
  WITH r ORDER BY r.ordinal
  WITH collect(r) AS runs
  UNWIND range(1, size(runs) - 1) AS i
  WITH runs[i - 1] AS before, runs[i] AS run
  WHERE run.provider <> before.provider
  RETURN date(run.startedAt) AS day, before.provider + ' → ' + run.provider AS direction
}
WITH t, day, direction
WHERE day >= date.truncate('day', datetime()) - duration({days: $days})
RETURN day, direction, count(*) AS switches, count(DISTINCT t) AS threads
ORDER BY day, direction
