// Test suites only: how many nodes the graph holds, but for the schema version that every
// migration (also every app's start-up) records and the write gates commands pass.
MATCH (n) WHERE NOT n:SchemaVersion AND NOT n:WriteGate RETURN count(n) AS nodes
