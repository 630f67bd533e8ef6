// Test suites only: how many threads each workspace holds.
MATCH (t:Thread)
RETURN t.workspace AS workspace, count(t) AS threads
ORDER BY workspace
