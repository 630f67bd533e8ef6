MATCH (c:CommandReceipt {key: $key})
RETURN c.mutation AS mutation, c.argsHash AS argsHash, c.result AS result
