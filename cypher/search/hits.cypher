// Full-text hits of a workspace, best first: $lucene (resolvers/search.py) keeps to the
// workspace and the kinds asked for; Lucene answers at most $candidates nodes, and a hit
// of a rolled-back run (not in Thread.items) or another workspace (a name that reads as
// the same words) is dropped here. A thread's title: runOrdinal, index, kind null; a run's
// input: index -1, kind USER_GOAL; an item: its run's ordinal, its index and kind.
CALL db.index.fulltext.queryNodes('search_text', $lucene, {limit: $candidates})
YIELD node, score
WHERE node.workspace = $workspace
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
