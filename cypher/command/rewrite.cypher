// A command answered in two transactions (a start whose configured summary came between
// them): its receipt holds the answer the client got, so a replay answers the same, and
// the position of the write gate it was rewritten at (docs/MODEL.md, "Write gates").
MATCH (c:CommandReceipt {workspace: $workspace, commandId: $commandId})
OPTIONAL MATCH (g:WriteGate {scope: $workspace, slot: $gate})
SET c.result = $result, c.gateSlot = g.slot, c.gateSeq = g.seq
