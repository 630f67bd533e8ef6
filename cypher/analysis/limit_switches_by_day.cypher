// description: Provider switches a usage limit caused, per day and direction (the provider that ran out → the one that took over), with the threads involved.
// param workspace: string — the workspace to read
// param days: int = 30 — how many days back from today (UTC)
//
// A switch a limit caused: a run that started on another provider right after a run
// that a usage limit interrupted (status INTERRUPTED), in the thread's active runs. It
// counts on the day the new run started. A thread that waited for the reset and went
// on with the same provider made no switch.
MATCH (t:Thread {workspace: $workspace}) USING INDEX t:Thread(workspace)
CALL (t) {
  MATCH (t)-[:HAS_RUN]->(r:Run)
  WHERE r.status <> 'ROLLED_BACK'
  WITH r ORDER BY r.ordinal
  WITH collect(r) AS runs
  UNWIND range(1, size(runs) - 1) AS i
  WITH runs[i - 1] AS before, runs[i] AS run
  WHERE before.status = 'INTERRUPTED' AND run.provider <> before.provider
  RETURN date(run.startedAt) AS day, before.provider AS limited, run.provider AS tookOver
}
WITH t, day, limited, tookOver
WHERE day >= date.truncate('day', datetime()) - duration({days: $days})
RETURN day, limited + ' → ' + tookOver AS direction, limited, count(*) AS switches,
       count(DISTINCT t) AS threads
ORDER BY day, direction
