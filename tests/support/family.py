"""The demo family as the GraphQL API reports it: the ground truth analysis tests derive
their expectations from (never from Cypher, so the two paths check each other)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread, run_once

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


FORK_AT = """mutation($id: ID!, $run: ID!, $title: String) {
  forkThread(sourceThreadId: $id, at: {runId: $run}, title: $title) { id } }"""


@dataclass
class WideFamily:
    """A root with a few forks (each with a run), each of those with many forks of its own."""

    root: str
    children: dict[str, list[str]]  # thread → its forks, in the order they were made

    @property
    def size(self) -> int:
        return 1 + sum(len(forks) for forks in self.children.values())


async def seed_wide_family(gql: GraphQLClient, parents: int, forks_each: int) -> WideFamily:
    """1 + parents + parents * forks_each threads through the API; the leaves have no runs
    (a fork needs a run of its source, nothing more), so seeding stays a request a thread."""
    root = await new_thread(gql, "wide root")
    first = (await run_once(gql, root, "codex", "plan the work"))["run"]["id"]
    family = WideFamily(root, {root: []})
    for n in range(parents):
        family.children[root].append(await _fork(gql, root, first, f"part {n}"))

    async def grow(n: int, middle: str) -> None:
        run = (await run_once(gql, middle, "codex", f"part {n}"))["run"]["id"]
        family.children[middle] = [
            await _fork(gql, middle, run, f"part {n} try {k}") for k in range(forks_each)
        ]

    await asyncio.gather(*(grow(n, m) for n, m in enumerate(family.children[root])))
    family.children = {t: family.children[t] for t in [root, *family.children[root]]}
    return family


async def _fork(gql: GraphQLClient, source: str, run: str, title: str) -> str:
    return str((await gql(FORK_AT, id=source, run=run, title=title))["forkThread"]["id"])
