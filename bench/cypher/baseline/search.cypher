// Baseline read: the hits of `search(query, first: 20)` (no kinds): the same full-text
// index and Lucene queries, one a field (resolvers/search.py builds them), the best
// $candidates of the three, the same place of each hit, in one query. A thread's title:
// runOrdinal and index null; a run's input: index -1.
CALL () {
  CALL db.index.fulltext.queryNodes('search_text', $titles, {limit: $candidates})
  YIELD node, score
  RETURN node, score
  UNION ALL
  CALL db.index.fulltext.queryNodes('search_text', $inputs, {limit: $candidates})
  YIELD node, score
  RETURN node, score
  UNION ALL
  CALL db.index.fulltext.queryNodes('search_text', $texts, {limit: $candidates})
  YIELD node, score
  RETURN node, score
}
WITH node, score
ORDER BY score DESC
LIMIT $candidates
WITH node, score
WHERE score > 0 AND node.workspace = $workspace
CALL (node) {
  WITH node WHERE node:Thread
  RETURN node.id AS threadId, null AS runOrdinal, null AS index
  UNION ALL
  WITH node WHERE node:Run AND node.status <> 'ROLLED_BACK'
  RETURN node.threadId AS threadId, node.ordinal AS runOrdinal, -1 AS index
  UNION ALL
  WITH node WHERE node:RunItem
  MATCH (r:Run)-[:HAS_ITEM]->(node)
  WHERE r.status <> 'ROLLED_BACK'
  RETURN r.threadId AS threadId, r.ordinal AS runOrdinal, node.seq AS index
}
RETURN threadId, runOrdinal, index, score
ORDER BY score DESC, threadId, runOrdinal, index
LIMIT $first
