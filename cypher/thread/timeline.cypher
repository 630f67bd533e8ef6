// Everything each thread's state is made of, every node with its history (historyJson),
// for answers as of a past instant (resolvers/past/as_of.py): its runs (without digests), its
// provider threads, the handoffs they received and those prepared for it (without text),
// its transfers both ways,
// and the ids of its ancestors and of the sources of its incoming transfers. It grows with
// the thread, so temporal properties leave as ISO strings (docs/MODEL.md, "Reading times").
UNWIND $ids AS id
MATCH (t:Thread {id: id, workspace: $workspace})
RETURN id AS key, {
  thread: t {.*, createdAt: toString(t.createdAt)},
  runs: COLLECT {
    MATCH (t)-[:HAS_RUN]->(r:Run)
    RETURN r {.*, digestJson: null,
      startedAt: toString(r.startedAt), completedAt: toString(r.completedAt),
      checkpoint: COLLECT {
        MATCH (r)-[:HAS_CHECKPOINT]->(c:Checkpoint) RETURN c {.*, createdAt: toString(c.createdAt)}
      }[0],
      consumedHandoffIds: COLLECT { MATCH (r)-[:CONSUMED]->(h:ContextHandoff) RETURN h.id }
    } ORDER BY r.ordinal
  },
  providerThreads: COLLECT {
    MATCH (t)-[:HAS_PROVIDER_THREAD]->(pt:ProviderThread)
    RETURN pt {.*, createdAt: toString(pt.createdAt), lastUsedAt: toString(pt.lastUsedAt)}
    ORDER BY pt.createdAt, pt.id
  },
  // Those its provider threads received, and those prepared for its next starts (a
  // prepared one a start injected is both, and read once).
  handoffs: COLLECT {
    CALL (t) {
      MATCH (t)-[:HAS_PROVIDER_THREAD]->(:ProviderThread)<-[:DELIVERED_TO]-(h:ContextHandoff)
      RETURN h
      UNION
      MATCH (t)-[:PREPARED]->(h:ContextHandoff)
      RETURN h
    }
    RETURN h {.*, summaryText: '', sectionsJson: '[]', omittedJson: '[]', qualityJson: null, createdAt: toString(h.createdAt),
              updatedAt: toString(h.updatedAt)} ORDER BY h.createdAt, h.id
  },
  transfersIn: COLLECT {
    MATCH (x:ContextTransfer)-[:TO_THREAD]->(t) RETURN x {.*, createdAt: toString(x.createdAt), consumedAt: toString(x.consumedAt)}
    ORDER BY x.createdAt, x.id
  },
  transfersOut: COLLECT {
    MATCH (x:ContextTransfer)-[:FROM_THREAD]->(t) RETURN x {.*, createdAt: toString(x.createdAt), consumedAt: toString(x.consumedAt)}
    ORDER BY x.createdAt, x.id
  },
  // No label on a: FORK, SUBAGENT and SIDE only join threads, and a label invites a thread scan.
  relatedIds: COLLECT { MATCH (a)-[:FORK|SUBAGENT|SIDE*1..100]->(t) RETURN a.id } +
    COLLECT {
      MATCH (x:ContextTransfer)-[:TO_THREAD]->(t)
      WHERE x.sourceThreadId <> t.id
      RETURN DISTINCT x.sourceThreadId
    }
} AS value
