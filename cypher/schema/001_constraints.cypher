// Uniqueness of every node id, of (thread, ordinal) for runs and of command ids.
// Applied at start-up and by `threadline migrate`; IF NOT EXISTS keeps them idempotent.
// Thread ids may be chosen by clients, so they are unique per workspace: a taken id in
// another workspace must not be observable.
DROP CONSTRAINT thread_id IF EXISTS;
CREATE CONSTRAINT thread_workspace_id IF NOT EXISTS FOR (n:Thread) REQUIRE (n.workspace, n.id) IS UNIQUE;
CREATE CONSTRAINT run_id IF NOT EXISTS FOR (n:Run) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT run_thread_ordinal IF NOT EXISTS FOR (n:Run) REQUIRE (n.threadId, n.ordinal) IS UNIQUE;
CREATE CONSTRAINT checkpoint_id IF NOT EXISTS FOR (n:Checkpoint) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT provider_thread_id IF NOT EXISTS FOR (n:ProviderThread) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT transfer_id IF NOT EXISTS FOR (n:ContextTransfer) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT handoff_id IF NOT EXISTS FOR (n:ContextHandoff) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT event_id IF NOT EXISTS FOR (n:ThreadEvent) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT command_key IF NOT EXISTS FOR (n:CommandReceipt) REQUIRE n.key IS UNIQUE
