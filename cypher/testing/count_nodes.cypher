// Test suites only: how many nodes the graph holds.
MATCH (n) RETURN count(n) AS nodes
