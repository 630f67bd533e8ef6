// How many threads a workspace holds.
MATCH (t:Thread {workspace: $workspace}) RETURN count(t) AS threads
