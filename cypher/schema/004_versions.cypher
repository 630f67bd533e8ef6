// The graph's schema version: one node, written by `threadline migrate` (also run at
// start-up) once every statement of cypher/schema/ has been applied. See docs/MODEL.md,
// "Schema versions".
CREATE CONSTRAINT schema_version_key IF NOT EXISTS FOR (n:SchemaVersion) REQUIRE n.key IS UNIQUE;
// Nodes a restore is writing carry the label Restoring and their snapshot key until its
// transaction ends, so its relationships find their ends by key (cypher/backup/).
CREATE INDEX restoring_key IF NOT EXISTS FOR (n:Restoring) ON (n.restoreKey)
