// A restore's first transaction (docs/MODEL.md, "Restores"): every slot of the target's
// write gate locked, so the commands in flight there end first and the next ones find the
// workspace closed; then its Restore node, made with $fresh, or found as a stopped
// restore left it (the caller then resumes it, or refuses). Nothing else is written.
UNWIND range(0, $slots - 1) AS slot
MERGE (g:WriteGate {scope: $workspace, slot: slot})
SET g.seq = coalesce(g.seq, 0) + 1
WITH count(g) AS locked
MERGE (r:Restore {scope: $workspace})
ON CREATE SET r += $fresh, r.closedAt = datetime()
RETURN r {.*, closedAt: null} AS restore, r.run = $fresh.run AS made
