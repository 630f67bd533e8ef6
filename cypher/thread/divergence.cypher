// What the divergence of a fork or subagent reads (resolvers/lineage/divergence.py): the child's
// ranges and latest run, the transfer that opened it (superseded or not), its source
// thread's ranges, the source run it was taken at, and the latest merge-back or result it
// sent back that was not superseded. A handful of nodes whatever either thread's length;
// a root answers no row.
UNWIND $ids AS id
MATCH (t:Thread {id: id, workspace: $workspace})<-[:TO_THREAD]-(x:ContextTransfer)
WHERE x.type IN ['FORK', 'SUBAGENT_SPAWN']
MATCH (x)-[:FROM_THREAD]->(s:Thread)
OPTIONAL MATCH (x)-[:SOURCE_RUN]->(point:Run)
OPTIONAL MATCH (last:Run {workspace: $workspace, threadId: t.id, ordinal: t.lastOrdinal})
RETURN id AS key, {
  child: {
    thread: t {.*},
    lastRun: CASE WHEN last IS NULL THEN null ELSE last {.*} END,
    transfers: [x {.*}],
    providerThreads: [], handoffs: [], outgoingTransfers: [], deltaChains: [],
    latestCompleted: [], latestStable: []
  },
  source: s {.*},
  point: CASE WHEN point IS NULL THEN null ELSE point {.*} END,
  returns: COLLECT {
    MATCH (t)<-[:FROM_THREAD]-(back:ContextTransfer)-[:TO_THREAD]->(s)
    WHERE back.type IN ['MERGE_BACK', 'SUBAGENT_RESULT'] AND back.status <> 'SUPERSEDED'
    RETURN back {.*} ORDER BY back.createdAt DESC, back.id DESC LIMIT 1
  }
} AS value
