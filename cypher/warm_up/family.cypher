// The warm-up family's threads (api/commands/warm_up.py): is it there yet?
MATCH (t:Thread {workspace: $workspace})
RETURN count(t) AS threads
