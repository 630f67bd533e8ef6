// The commandIds among $commandIds whose command committed: those with a receipt in $workspace.
UNWIND $commandIds AS commandId
MATCH (c:CommandReceipt {workspace: $workspace, commandId: commandId})
RETURN c.commandId AS commandId
