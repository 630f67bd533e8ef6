MATCH (t:Thread {id: $threadId, workspace: $workspace})
SET t += $props
RETURN t {.*} AS thread
