// Test suites only: how many of the acknowledged objects the graph holds.
RETURN
  COUNT { MATCH (t:Thread) WHERE t.id IN $threads } AS threads,
  COUNT { MATCH (r:Run)-[:EXECUTED_ON]->(:ProviderThread) WHERE r.id IN $runs } AS runs,
  COUNT { MATCH (r:Run {status: 'COMPLETED'})-[:HAS_CHECKPOINT]->(:Checkpoint)
          WHERE r.id IN $completed } AS completed
