// Maintenance, never on a request's path. After the warm-up family is written
// (api/commands/warm_up.py, graph/store.py): plans made while the
// graph was empty are dropped, so that every plan is made on counts that are not zero.
CALL db.clearQueryCaches() YIELD value
RETURN value
