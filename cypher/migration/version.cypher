// The schema version the graph records (null: none recorded, a graph older than versions).
OPTIONAL MATCH (v:SchemaVersion {key: 'graph'})
RETURN v.version AS version
