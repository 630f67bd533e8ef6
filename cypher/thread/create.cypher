CREATE (t:Thread)
SET t = $thread, t.version = 0
RETURN t {.*} AS thread
