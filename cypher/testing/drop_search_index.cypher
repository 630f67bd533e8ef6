// The full-text index gone, as in a graph of a version before it: for the test that
// `migrate` builds it for nodes already there.
DROP INDEX search_text IF EXISTS
