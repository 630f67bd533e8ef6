// Every workspace a restore holds closed (running, or stopped and not yet resumed or
// discarded): what an API process remembers for a moment to refuse their reads.
MATCH (r:Restore) RETURN r.scope AS scope
