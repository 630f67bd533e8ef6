// Test suites only: the graph's recorded schema version set as a newer or older
// Threadline would have left it.
MERGE (v:SchemaVersion {key: 'graph'})
SET v.version = $version
