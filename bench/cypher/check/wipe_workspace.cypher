// The harness's own workspaces only: every node of $workspace, in batches (auto-commit).
MATCH (n)
WHERE n.workspace = $workspace
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
