// The workspace's write position, slot by slot: a backup reads what changed after it by
// the positions stamped on threads, receipts and usage limits (backup/changed).
MATCH (g:WriteGate {scope: $workspace})
RETURN g.slot AS slot, g.seq AS seq
