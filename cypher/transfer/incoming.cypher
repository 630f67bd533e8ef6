UNWIND $ids AS id
MATCH (x:ContextTransfer {workspace: $workspace})-[:TO_THREAD]->(:Thread {id: id, workspace: $workspace})
RETURN id AS key, x {.*} AS value
ORDER BY x.createdAt, x.id
