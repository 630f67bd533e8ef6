// A handoff, the id of the thread that consumes it, and the transfer it was made for.
MATCH (h:ContextHandoff {id: $handoffId, workspace: $workspace})-[:FOR_THREAD]->(t:Thread)
RETURN t.id AS threadId, h {.*} AS handoff,
  COLLECT { MATCH (x:ContextTransfer {id: h.transferId, workspace: $workspace})
            RETURN x {.*} }[0] AS transfer
