// A thread's whole family, for `threadline export`: one row per thread under its root
// (depth from the root; side threads included), with its runs, the lineage edge from its
// parent and the transfer that opened it (with its source point: a fork at an item names it), the merge-backs and subagent results it received (the transfers that go
// back up the tree, as the lineage page draws them), and its provider threads with their
// native and handoff-covered runs (docs/MODEL.md: history runs only; handoff coverage counts
// READY handoffs about the provider thread's own thread). Lineage is a tree, walked down at
// most 100 hops.
MATCH (start:Thread {id: $threadId, workspace: $workspace})
MATCH (root:Thread {id: start.rootId, workspace: $workspace})
MATCH p = (root)-[:FORK|SUBAGENT|SIDE*0..100]->(t)  // no label: these only join threads
WITH t, length(p) AS depth
ORDER BY depth, t.createdAt, t.id
RETURN t {.id, .title, .relationshipToParent, .parentId, .createdBy} AS thread, depth,
  COLLECT {
    MATCH (t)-[:HAS_RUN]->(r:Run)
    RETURN r {.ordinal, .provider, .status} ORDER BY r.ordinal
  } AS runs,
  COLLECT {
    MATCH (parent:Thread)-[e:FORK|SUBAGENT|SIDE]->(t)
    OPTIONAL MATCH (x:ContextTransfer)-[:TO_THREAD]->(t)
    WHERE x.type IN ['FORK', 'SUBAGENT_SPAWN']
    RETURN {parent: parent.id, relationship: type(e), sourceRunOrdinal: e.sourceRunOrdinal,
            transfer: x.id, transferStatus: x.status, resolution: x.resolutionStrategy,
            sourcePoint: x.sourcePointJson}
  } AS parentEdges,
  COLLECT {
    MATCH (source:Thread)<-[:FROM_THREAD]-(x:ContextTransfer)-[:TO_THREAD]->(t)
    WHERE x.type IN ['MERGE_BACK', 'SUBAGENT_RESULT']
    RETURN {source: source.id, type: x.type, transfer: x.id, status: x.status,
            resolution: x.resolutionStrategy}
    ORDER BY x.createdAt, x.id
  } AS returns,
  COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    RETURN pt {.id, .provider, .status, .nativeRef, .forkedFromId,
      native: COLLECT {
        MATCH (r:Run)-[:EXECUTED_ON]->(pt)
        WHERE r.status IN ['COMPLETED', 'FAILED', 'INTERRUPTED']
        RETURN r.ordinal ORDER BY r.ordinal
      },
      handedOver: COLLECT {
        MATCH (pt)<-[:DELIVERED_TO]-(h:ContextHandoff)-[:COVERS]->(r:Run)
        WHERE h.status = 'READY' AND r.threadId = t.id
          AND r.status IN ['COMPLETED', 'FAILED', 'INTERRUPTED']
        RETURN DISTINCT r.ordinal ORDER BY r.ordinal
      }
    } ORDER BY pt.createdAt, pt.id
  } AS providerThreads
