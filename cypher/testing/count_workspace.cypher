// Test suites only: how many nodes carry this workspace name.
MATCH (n) WHERE n.workspace = $workspace RETURN count(n) AS nodes
