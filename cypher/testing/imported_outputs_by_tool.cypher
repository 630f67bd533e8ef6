// Test suites only: imported tool outputs keyed as imports before schema 6 keyed them, by
// the tool's name alone, in their items and in their runs' digests, to prove the migration
// (schema/006_imported_output_keys.cypher) makes each one material again.
MATCH (r:Run {workspace: $workspace, threadId: $threadId})
WHERE r.importKey IS NOT NULL
CALL (r) {
  MATCH (r)-[:HAS_ITEM]->(i:RunItem)
  WHERE i.kind = 'TOOL_OUTPUT' AND i.key CONTAINS ':'
  WITH i, split(i.key, ':')[0] AS tool, i.key AS key
  SET i.key = tool
  RETURN collect([key, tool]) AS renamed
}
SET r.digestJson = reduce(d = r.digestJson, pair IN renamed |
  replace(d, '"key": "' + pair[0] + '"', '"key": "' + pair[1] + '"'))
RETURN count(r) AS runs
