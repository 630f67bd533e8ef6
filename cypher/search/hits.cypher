// Full-text hits of a workspace, best first: $titles, $inputs and $texts
// (resolvers/search.py) each keep to the workspace and search one field (null: not
// searched); Lucene answers at most $candidates nodes each, and the best $candidates of
// those are the ones a query over the three fields would answer. A node the workspace
// clause alone matched (score 0: the index holds none of the query's words, such as `_`)
// is no hit; nor is one of a rolled-back run (not in Thread.items) or of another
// workspace (a name that reads as the same words). A thread's title: runOrdinal, index,
// kind null; a run's input: index -1, kind USER_GOAL; an item: its run's ordinal, its
// index and kind.
CALL () {
  WITH $titles AS lucene WHERE lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('search_text', lucene, {limit: $candidates})
  YIELD node, score
  RETURN node, score
  UNION ALL
  WITH $inputs AS lucene WHERE lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('search_text', lucene, {limit: $candidates})
  YIELD node, score
  RETURN node, score
  UNION ALL
  WITH $texts AS lucene WHERE lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('search_text', lucene, {limit: $candidates})
  YIELD node, score
  RETURN node, score
}
WITH node, score
ORDER BY score DESC
LIMIT $candidates
WITH node, score
WHERE score > 0 AND node.workspace = $workspace
CALL (node) {
  WITH node WHERE node:Thread AND $kinds IS NULL
  RETURN node.id AS threadId, null AS runOrdinal, null AS index, null AS kind,
         node.title AS text
  UNION ALL
  WITH node WHERE node:Run AND node.status <> 'ROLLED_BACK'
    AND ($kinds IS NULL OR 'USER_GOAL' IN $kinds)
  RETURN node.threadId AS threadId, node.ordinal AS runOrdinal, -1 AS index,
         'USER_GOAL' AS kind, node.input AS text
  UNION ALL
  WITH node WHERE node:RunItem AND ($kinds IS NULL OR node.kind IN $kinds)
  MATCH (r:Run)-[:HAS_ITEM]->(node)
  WHERE r.status <> 'ROLLED_BACK'
  RETURN r.threadId AS threadId, r.ordinal AS runOrdinal, node.seq AS index,
         node.kind AS kind, node.text AS text
}
RETURN threadId, runOrdinal, index, kind, text, score
ORDER BY score DESC, threadId, runOrdinal, index
LIMIT $first
