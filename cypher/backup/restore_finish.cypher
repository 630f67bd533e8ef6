// The restore's last statement: its nodes lose their mark and key.
MATCH (n:Restoring) WHERE n.workspace = $workspace
REMOVE n:Restoring, n.restoreKey
RETURN count(n) AS restored
