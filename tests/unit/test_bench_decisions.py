"""The benchmark's generated threads follow the product's own decisions, not a copy of them:
each root thread's history (its starts on each provider, failures and rollbacks, in the
order its events say) is replayed through `resolvers` (`decide_start`, `decide_rollback`),
and every run must have started with the strategy and provider action the product
decides. A change to the ladder or the staleness policy that the generator does not
follow fails here, not silently in the benchmark's figures."""

from __future__ import annotations

from bench.families import Shape, family
from bench.records import ThreadRecord
from graph.models import HistoryMode, RunStatus
from tests.support.scenario import Scenario

DELIVERED = frozenset({"MERGE_BACK", "SUBAGENT_RESULT"})
FAMILIES = 1000  # enough that delta chains and staleness both occur (a 4 s test)


def decided_by_the_product(thread: ThreadRecord) -> list[tuple[int, str, str]]:
    """(ordinal, strategy, provider action) of each run, as `resolvers` decides them."""
    # The generated clients report histories no provider rolls back natively.
    scenario = Scenario(history=HistoryMode.PAGINATED)
    ended = {e.run_id: e.type for e in thread.events if e.type in ("run.completed", "run.failed")}
    runs = {run.id: run for run in thread.runs}
    decided = []
    for event in thread.events:
        if event.type == "run.started" and event.run_id is not None:
            run = runs[event.run_id]
            failed = ended.get(run.id) == "run.failed"
            decision = scenario.run(
                run.provider, status=RunStatus.FAILED if failed else RunStatus.COMPLETED
            )
            decided.append((run.ordinal, decision.strategy.value, decision.providerAction.value))
        elif event.type == "thread.rolledBack":
            scenario.rollback(event.payload["toRunOrdinal"])
    return decided


def recorded_by_the_generator(thread: ThreadRecord) -> list[tuple[int, str, str]]:
    return [
        (run.ordinal, run.start_strategy or "", run.provider_action or "")
        for run in sorted(thread.runs, key=lambda r: r.ordinal)
    ]


def test_generated_root_threads_start_as_the_product_decides() -> None:
    compared = runs = 0
    strategies: set[str] = set()
    for index in range(FAMILIES):
        drawn = family(index, 7, Shape())
        delivered = {x.target_thread_id for x in drawn.transfers if x.type in DELIVERED}
        for thread in drawn.threads:
            if thread.parent_id is not None or thread.id in delivered:
                continue  # forks, subagents and deliveries need the family around them
            product = decided_by_the_product(thread)
            assert recorded_by_the_generator(thread) == product, thread.id
            compared += 1
            runs += len(product)
            strategies |= {strategy for _, strategy, _ in product}
    assert compared >= 30 and runs >= 300
    assert {"NO_HANDOFF", "DELTA_HANDOFF_EXISTING_THREAD", "FULL_HANDOFF_NEW_THREAD"} <= strategies
