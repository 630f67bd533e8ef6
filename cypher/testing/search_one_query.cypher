// The best full-text matches of one Lucene query over the three searched fields at once
// (a workspace's titles, inputs and item texts): the search splits it into one query a
// field, and a test checks the split ranks as this does.
CALL db.index.fulltext.queryNodes('search_text', $lucene, {limit: $limit})
YIELD node, score
WHERE node.workspace = $workspace
RETURN coalesce(node.title, node.input, node.text) AS text, score
ORDER BY score DESC
