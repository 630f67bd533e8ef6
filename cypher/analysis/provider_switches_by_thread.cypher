// description: Provider switches per thread: how often each thread moved to another provider.
// param workspace: string — the workspace to read
// param limit: int = 50 — at most this many threads, most switches first
//
// A switch is a run whose provider differs from the thread's previous run; rolled-back
// runs are not history, so they are skipped. `path` lists the providers in run order
// with repeats folded (codex → claude → codex).
MATCH (t:Thread {workspace: $workspace}) USING INDEX t:Thread(workspace)
CALL (t) {
  MATCH (t)-[:HAS_RUN]->(r:Run)
  WHERE r.status <> 'ROLLED_BACK'
  WITH r ORDER BY r.ordinal
  RETURN collect(r.provider) AS providers
}
WITH t, providers,
     [i IN range(1, size(providers) - 1) WHERE providers[i] <> providers[i - 1]] AS switchesAt
WHERE size(switchesAt) > 0
RETURN t.id AS thread, t.title AS title, size(providers) AS runs, size(switchesAt) AS switches,
       [providers[0]] + [i IN switchesAt | providers[i]] AS path
ORDER BY switches DESC, thread
LIMIT $limit
