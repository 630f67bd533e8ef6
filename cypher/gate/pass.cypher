// The write gate of a command that locks no thread before it writes (createThread, a
// usage limit, an import into a new thread): its slot of the workspace's gate, locked
// until the command commits (docs/MODEL.md, "Write gates"), and whether the workspace is
// closed by a restore, when the command writes nothing.
MERGE (g:WriteGate {scope: $workspace, slot: $gate})
SET g.seq = coalesce(g.seq, 0) + 1
RETURN EXISTS { MATCH (:Restore {scope: $workspace}) } AS closed
