// Records the schema version every migration up to $version has been applied for. Never
// lowers it: a code older than the graph is refused before it migrates (graph/migrations.py).
MERGE (v:SchemaVersion {key: 'graph'})
ON CREATE SET v.version = $version, v.migratedAt = datetime()
ON MATCH SET v.migratedAt = CASE WHEN v.version < $version THEN datetime() ELSE v.migratedAt END,
  v.version = CASE WHEN v.version < $version THEN $version ELSE v.version END
RETURN v.version AS version
