// The uniqueness constraint on `key` makes a concurrent duplicate fail and roll back.
CREATE (c:CommandReceipt {key: $key, workspace: $workspace, commandId: $commandId,
  mutation: $mutation, argsHash: $argsHash, result: $result, createdAt: $at})
