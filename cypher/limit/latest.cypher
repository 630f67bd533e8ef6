// The workspace's latest usage limit of each provider that ever reported one (whether
// still in force is the reader's to say, against its clock).
MATCH (l:ProviderLimit {workspace: $workspace})
WITH l ORDER BY l.reportedAt DESC, l.id DESC
WITH l.provider AS provider, collect(l)[0] AS latest
RETURN latest {.*} AS limit
ORDER BY provider
