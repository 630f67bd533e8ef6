// Full-text search (cypher/search/hits.cypher): thread titles, run inputs and item texts in
// one Neo4j full-text index, with each node's workspace and an item's kind as fields of
// their own, so one Lucene query keeps to a workspace (and kinds) before it ranks. Neo4j
// fills a new index from the nodes already there; the wait makes `threadline migrate` end
// once it is filled.
CREATE FULLTEXT INDEX search_text IF NOT EXISTS
FOR (n:Thread|Run|RunItem) ON EACH [n.workspace, n.title, n.input, n.text, n.kind]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};
CALL db.awaitIndex('search_text', 600)
