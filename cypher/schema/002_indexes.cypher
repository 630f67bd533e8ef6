// Lookups the store makes by property other than id; thread-keyed ones carry the workspace.
DROP INDEX event_thread_seq IF EXISTS;
CREATE INDEX thread_workspace_created IF NOT EXISTS FOR (n:Thread) ON (n.workspace, n.createdAt, n.id);
CREATE INDEX event_workspace_thread_seq IF NOT EXISTS FOR (n:ThreadEvent) ON (n.workspace, n.threadId, n.seq);
CREATE INDEX provider_thread_native_ref IF NOT EXISTS FOR (n:ProviderThread) ON (n.nativeRef);
// Starting points of the analysis queries (cypher/analysis/): each reads one workspace.
CREATE INDEX thread_workspace IF NOT EXISTS FOR (n:Thread) ON (n.workspace);
CREATE INDEX run_workspace_status IF NOT EXISTS FOR (n:Run) ON (n.workspace, n.status);
CREATE INDEX provider_thread_workspace_status IF NOT EXISTS FOR (n:ProviderThread) ON (n.workspace, n.status);
CREATE INDEX handoff_workspace_status IF NOT EXISTS FOR (n:ContextHandoff) ON (n.workspace, n.status);
// The cache of configured summaries (cypher/handoff/by_summary_keys.cypher).
CREATE INDEX handoff_workspace_summary_key IF NOT EXISTS FOR (n:ContextHandoff) ON (n.workspace, n.summaryKey);
CREATE INDEX transfer_workspace_status IF NOT EXISTS FOR (n:ContextTransfer) ON (n.workspace, n.status);
// A workspace's usage limits (cypher/limit/*.cypher).
CREATE INDEX provider_limit_workspace IF NOT EXISTS FOR (n:ProviderLimit) ON (n.workspace)
