// Test suites only: how many nodes the graph holds, but for the schema version that every
// migration (also every app's start-up) records.
MATCH (n) WHERE NOT n:SchemaVersion RETURN count(n) AS nodes
