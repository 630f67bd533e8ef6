// The uniqueness constraint on (workspace, commandId) makes a concurrent duplicate fail
// and roll back.
CREATE (c:CommandReceipt {workspace: $workspace, commandId: $commandId,
  mutation: $mutation, argsHash: $argsHash, result: $result, createdAt: $at})
