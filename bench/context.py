"""What delta handoffs save over full ones, and what budgets cost in quality.

Both figures are pure functions of the generated content (the same 1,000 runs as the
summary build time: `bench.summary.runs`, providers switching every 10 runs), computed
in-process with the product's own summarizer, selection and quality rule:

- at every switch back to a provider that ran before, the delta handoff (the runs that
  provider missed) beside the full handoff of every run so far, each within the
  provider's cap (32,000 tokens);
- the full handoff of the first 20, 200 and 1,000 runs at budgets of 2k, 8k and 32k
  tokens: its quality score, and how many items it left out.
"""

from __future__ import annotations

from bench.client import provider_at
from bench.results import BudgetQuality, DeltaSaving, Stat
from bench.summary import MAX_TOKENS, runs
from graph.models import RunDigest
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.quality import assess
from resolvers.handoffs.summarizer import summarize

BUDGETS = (2_000, 8_000, 32_000)
POINTS = (20, 200, 1_000)


def delta_saving(count: int, seed: int) -> DeltaSaving:
    history = [digest_of(run) for run in runs(count, seed)]
    deltas: list[float] = []
    fulls: list[float] = []
    savings: list[float] = []
    last_seen: dict[str, int] = {}
    for run in history:
        provider = provider_at(run.ordinal)
        before = run.ordinal - 1
        seen = last_seen.get(provider)
        if seen is not None and provider_at(before) != provider:
            delta = _tokens(history[seen:before], "# Context handoff: what you missed")
            full = _tokens(history[:before], f"# Context handoff: runs 1-{before}")
            deltas.append(delta)
            fulls.append(full)
            savings.append(100 * (1 - delta / full))
        last_seen[provider] = run.ordinal
    return DeltaSaving(
        len(deltas), Stat.of_values(deltas), Stat.of_values(fulls), Stat.of_values(savings)
    )


def budget_quality(count: int, seed: int) -> list[BudgetQuality]:
    history = [digest_of(run) for run in runs(count, seed)]
    found: list[BudgetQuality] = []
    for point in (p for p in POINTS if p <= count):
        covered = history[:point]
        for budget in BUDGETS:
            summary = summarize(
                covered, title=f"# Context handoff: runs 1-{point}", max_tokens=budget
            )
            quality = assess(summary.text, covered, summary.omitted, summary.fidelity)
            found.append(
                BudgetQuality(
                    point,
                    budget,
                    summary.tokenEstimate,
                    quality.score,
                    len(summary.omitted),
                    summary.fidelity,
                )
            )
    return found


def _tokens(covered: list[RunDigest], title: str) -> int:
    return summarize(covered, title=title, max_tokens=MAX_TOKENS).tokenEstimate
