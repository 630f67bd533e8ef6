// A command answered in two transactions (a start whose configured summary came between
// them): its receipt holds the answer the client got, so a replay answers the same.
MATCH (c:CommandReceipt {workspace: $workspace, commandId: $commandId})
SET c.result = $result
