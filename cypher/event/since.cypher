// The subscription poll: for each watched thread, up to $first events after the seq its
// feed last delivered, in order. One round trip serves every thread this process watches.
// Read through the (workspace, threadId, seq) index: another workspace may use the same id.
UNWIND $feeds AS feed
RETURN feed.key AS key,
  COLLECT {
    MATCH (e:ThreadEvent {workspace: feed.workspace, threadId: feed.threadId})
    WHERE e.seq > feed.afterSeq
    RETURN e {.*, at: toString(e.at)} ORDER BY e.seq LIMIT $first
  } AS events
