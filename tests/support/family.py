"""The demo family as the GraphQL API reports it: the ground truth analysis tests derive
their expectations from (never from Cypher, so the two paths check each other)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tests.support.graphql import GraphQLClient

FAMILY = """
query($root: ID!) {
  lineage(threadId: $root, direction: DESCENDANTS, depth: 100) {
    nodes { depth thread {
      id title relationshipToParent parent { id }
      runs(includeRolledBack: true) {
        id ordinal provider status startedAt
        contextHandoffs { id }
      }
      providerThreads {
        id provider status nativeRef
        coverage { nativeRunOrdinals coveredRunOrdinals }
        handoffs {
          id kind strategy status tokenEstimate createdAt
          coveredRunOrdinals { from to }
          sourceThread { id } toProviderThread { id provider }
          fromProviderThreads { id } transfer { type }
        }
      }
      incomingTransfers { ...transfer }
      outgoingTransfers { ...transfer }
      divergence { sourceRunsSinceFork sourceRolledBackPastFork sourceRolledBackTo
                   unmergedRunOrdinals lastMergeBackAt }
    } }
    edges { from to relationship sourceRunOrdinal }
  }
}
fragment transfer on ContextTransfer {
  id type status resolutionStrategy
  sourceThread { id } targetThread { id } sourcePoint { run { ordinal } }
}
"""

HISTORY = ("COMPLETED", "FAILED", "INTERRUPTED")


@dataclass
class Family:
    threads: dict[str, dict[str, Any]]
    depth: dict[str, int]
    edges: list[dict[str, Any]]

    @classmethod
    async def load(cls, gql: GraphQLClient, root: str) -> Family:
        lineage = (await gql(FAMILY, root=root))["lineage"]
        threads = {node["thread"]["id"]: node["thread"] for node in lineage["nodes"]}
        depth = {node["thread"]["id"]: node["depth"] for node in lineage["nodes"]}
        return cls(threads, depth, lineage["edges"])

    def runs(self, thread_id: str) -> list[dict[str, Any]]:
        return sorted(self.threads[thread_id]["runs"], key=lambda r: r["ordinal"])

    def active_runs(self, thread_id: str) -> list[dict[str, Any]]:
        return [r for r in self.runs(thread_id) if r["status"] != "ROLLED_BACK"]

    def provider_threads(self) -> list[tuple[str, dict[str, Any]]]:
        return [(t, pt) for t, thread in self.threads.items() for pt in thread["providerThreads"]]

    def handoffs(self) -> dict[str, dict[str, Any]]:
        """Every handoff, once (each is delivered to exactly one provider thread)."""
        return {h["id"]: h for _, pt in self.provider_threads() for h in pt["handoffs"]}

    def transfers(self) -> dict[str, dict[str, Any]]:
        return {
            x["id"]: x
            for thread in self.threads.values()
            for x in thread["incomingTransfers"] + thread["outgoingTransfers"]
        }

    def consumer_of(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """handoff id → (thread id, run) of the run that consumed it."""
        return {
            h["id"]: (thread_id, run)
            for thread_id in self.threads
            for run in self.runs(thread_id)
            for h in run["contextHandoffs"]
        }


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)
