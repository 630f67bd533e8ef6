// Uniqueness of thread ids, of (thread, ordinal) for runs and of command ids (the other
// node ids: 005_workspace_keys).
// Applied at start-up and by `threadline migrate`; IF NOT EXISTS keeps them idempotent.
// Thread ids may be chosen by clients, so every key that involves a thread id (or a
// command id) carries the workspace: two workspaces may pick the same id and never meet.
DROP CONSTRAINT thread_id IF EXISTS;
DROP CONSTRAINT run_thread_ordinal IF EXISTS;
DROP CONSTRAINT command_key IF EXISTS;
CREATE CONSTRAINT thread_workspace_id IF NOT EXISTS FOR (n:Thread) REQUIRE (n.workspace, n.id) IS UNIQUE;
CREATE CONSTRAINT run_workspace_thread_ordinal IF NOT EXISTS FOR (n:Run) REQUIRE (n.workspace, n.threadId, n.ordinal) IS UNIQUE;
// An imported session has one provider thread per workspace (two racing imports: one fails).
CREATE CONSTRAINT provider_thread_session IF NOT EXISTS FOR (n:ProviderThread) REQUIRE (n.workspace, n.sessionKey) IS UNIQUE;
CREATE CONSTRAINT command_workspace_id IF NOT EXISTS FOR (n:CommandReceipt) REQUIRE (n.workspace, n.commandId) IS UNIQUE
