// Backups of a workspace that is being written, and restores in batches (docs/MODEL.md,
// "Write gates" and "Snapshots"). Every command passes one slot of its workspace's write
// gate, whose count is the workspace's write position; the threads, receipts and usage
// limits a command writes carry the position it wrote at, so a backup finds what changed
// since it read by index. A Restore node closes its workspace while a restore runs.
CREATE CONSTRAINT write_gate_scope_slot IF NOT EXISTS FOR (n:WriteGate) REQUIRE (n.scope, n.slot) IS UNIQUE;
// An index, not a uniqueness constraint: in a statement that writes, Neo4j seeks a unique
// key with a lock, and an absent one's lock is exclusive, so every command's check that
// its workspace is not being restored would wait for every other's. A restore makes its
// node only with every slot of the gate locked, so two restores of one workspace never
// both make one.
CREATE INDEX restore_scope IF NOT EXISTS FOR (n:Restore) ON (n.scope);
CREATE INDEX thread_workspace_gate IF NOT EXISTS FOR (n:Thread) ON (n.workspace, n.gateSlot, n.gateSeq);
CREATE INDEX command_workspace_gate IF NOT EXISTS FOR (n:CommandReceipt) ON (n.workspace, n.gateSlot, n.gateSeq);
CREATE INDEX provider_limit_workspace_gate IF NOT EXISTS FOR (n:ProviderLimit) ON (n.workspace, n.gateSlot, n.gateSeq)
