// The backup's pause: every slot of the workspace's write gate locked (made if missing),
// in slot order, so the commands in flight end first and every later one waits until the
// pause's transaction ends, which rolls back (it writes nothing). Commands lock their one
// slot before anything else, so they and the pause never wait on each other both ways.
UNWIND range(0, $slots - 1) AS slot
MERGE (g:WriteGate {scope: $workspace, slot: slot})
SET g.seq = coalesce(g.seq, 0) + 1
RETURN count(g) AS locked
