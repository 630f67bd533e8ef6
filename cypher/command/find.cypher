MATCH (c:CommandReceipt {workspace: $workspace, commandId: $commandId})
RETURN c.mutation AS mutation, c.argsHash AS argsHash, c.result AS result
