// Configured summaries already paid for, by their key (the hash of the instructions, the
// material and the model): the earliest handoff of this workspace holding each. Only a
// summary the configured summarizer wrote has a key; a fallback never does.
UNWIND $keys AS key
CALL (key) {
  MATCH (h:ContextHandoff {workspace: $workspace, summaryKey: key})
  RETURN h ORDER BY h.createdAt, h.id LIMIT 1
}
RETURN key, h {.*} AS handoff
