// What commands wrote after the write position $marks (a count per slot of the write
// gate): the threads they locked or made, the receipts and the usage limits they wrote.
// Every node of a thread's bundle (backup/bundles) changes only under its thread's lock,
// so a changed bundle is found by its thread. Three index range seeks per slot.
UNWIND range(0, size($marks) - 1) AS slot
WITH slot, $marks[slot] AS mark
CALL (slot, mark) {
  MATCH (t:Thread {workspace: $workspace, gateSlot: slot}) WHERE t.gateSeq > mark
  RETURN 'thread' AS kind, t.id AS id
  UNION ALL
  MATCH (c:CommandReceipt {workspace: $workspace, gateSlot: slot}) WHERE c.gateSeq > mark
  RETURN 'receipt' AS kind, c.commandId AS id
  UNION ALL
  MATCH (l:ProviderLimit {workspace: $workspace, gateSlot: slot}) WHERE l.gateSeq > mark
  RETURN 'limit' AS kind, l.id AS id
}
RETURN kind, id
