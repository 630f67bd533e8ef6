// Whether a stopped restore holds the workspace (its Restore node): `threadline restore
// --discard` removes it and what it wrote, which a wipe by workspace name does not reach.
OPTIONAL MATCH (r:Restore {scope: $workspace})
RETURN r IS NOT NULL AS left
