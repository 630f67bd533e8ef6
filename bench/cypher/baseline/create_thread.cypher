// Baseline for createThread: the thread, its first event and the command receipt.
CREATE (t:Thread)
SET t = $thread
CREATE (t)-[:HAS_EVENT]->(e:ThreadEvent)
SET e = $event
CREATE (c:CommandReceipt)
SET c = $receipt
