// Every node id is a key within its workspace, as thread ids are: a workspace restored
// under another name (`threadline restore --as-workspace`) keeps its ids beside the
// original's. Every lookup names the workspace with the id, so each is one index seek.
// Replaces the database-wide keys of earlier versions.
DROP CONSTRAINT run_id IF EXISTS;
DROP CONSTRAINT checkpoint_id IF EXISTS;
DROP CONSTRAINT provider_thread_id IF EXISTS;
DROP CONSTRAINT transfer_id IF EXISTS;
DROP CONSTRAINT handoff_id IF EXISTS;
DROP CONSTRAINT provider_limit_id IF EXISTS;
DROP CONSTRAINT event_id IF EXISTS;
CREATE CONSTRAINT run_workspace_id IF NOT EXISTS FOR (n:Run) REQUIRE (n.workspace, n.id) IS UNIQUE;
CREATE CONSTRAINT checkpoint_workspace_id IF NOT EXISTS FOR (n:Checkpoint) REQUIRE (n.workspace, n.id) IS UNIQUE;
CREATE CONSTRAINT provider_thread_workspace_id IF NOT EXISTS FOR (n:ProviderThread) REQUIRE (n.workspace, n.id) IS UNIQUE;
CREATE CONSTRAINT transfer_workspace_id IF NOT EXISTS FOR (n:ContextTransfer) REQUIRE (n.workspace, n.id) IS UNIQUE;
CREATE CONSTRAINT handoff_workspace_id IF NOT EXISTS FOR (n:ContextHandoff) REQUIRE (n.workspace, n.id) IS UNIQUE;
CREATE CONSTRAINT provider_limit_workspace_id IF NOT EXISTS FOR (n:ProviderLimit) REQUIRE (n.workspace, n.id) IS UNIQUE;
CREATE CONSTRAINT event_workspace_id IF NOT EXISTS FOR (n:ThreadEvent) REQUIRE (n.workspace, n.id) IS UNIQUE
