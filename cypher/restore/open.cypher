// The restore's last transaction: the Restore node goes, and with it the workspace opens,
// whole (docs/MODEL.md, "Restores").
MATCH (r:Restore {scope: $workspace}) WHERE r.run = $run
DELETE r
RETURN count(*) AS opened
