// Test suites only: load threads that got more than the one run each cycle starts.
RETURN COUNT {
  MATCH (t:Thread {workspace: 'default'})
  WHERE t.id STARTS WITH 'fault-' AND COUNT { (t)-[:HAS_RUN]->(:Run) } > 1
} AS threads
