// Maintenance, never on a request's path. After the warm-up family is written
// (api/commands/warm_up.py, graph/warm_up.py): every index is sampled again, waiting for the
// samples, and then the plans made while the graph was empty are dropped, so that every plan
// is made on counts and index statistics that are not zero. Without the wait, Neo4j sampled
// the family's index entries in the background at a moment of its own, at times after the
// warm-up had planned: the first commands after "ready at" then found their plans stale (an
// index's statistics from none to a few) and planned them again, about 2 s each.
// Neo4j's own bound (300 s) is longer than the warm-up's on the family (REHEARSAL_S), so a
// slow sampling ends as that timeout, which the warm-up retries without it, never as an error.
CALL db.prepareForReplanning(300)
