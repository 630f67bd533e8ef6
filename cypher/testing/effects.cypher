// Test suites only: which of the fault test's attempts left their effect in the graph.
// Each attempt names what it would have written; the answer lists the attempts found.
UNWIND $attempts AS a
WITH a WHERE CASE a.kind
  WHEN 'createThread' THEN EXISTS { MATCH (:Thread {workspace: 'default', id: a.thread}) }
  WHEN 'startRun' THEN EXISTS {
    MATCH (:Thread {workspace: 'default', id: a.thread})-[:HAS_RUN]->(:Run {input: a.input}) }
  WHEN 'attachNativeThread' THEN EXISTS {
    MATCH (:ProviderThread {workspace: 'default', id: a.pt, nativeRef: a.ref}) }
  WHEN 'completeRun' THEN EXISTS {
    MATCH (:Run {workspace: 'default', id: a.run, nativeTurnRef: a.turn, status: 'COMPLETED'}) }
  ELSE false
END
RETURN a.i AS i
