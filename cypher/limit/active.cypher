// The workspace's usage limits in force at $now: not ended (cleared or replaced by a
// newer report) and not past their reset. Usually one per provider; two reports that
// raced may leave two, and the newer speaks for the account (resolvers/limits.py).
MATCH (l:ProviderLimit {workspace: $workspace})
WHERE l.endedAt IS NULL AND (l.resetsAt IS NULL OR l.resetsAt > $now)
RETURN l {.*} AS limit
ORDER BY l.provider, l.reportedAt DESC
