"""The fidelity benchmark (issue 57, "The numbers"): Threadline's handoffs beside T3 Code's
rule and the naive "last messages that fit", at budgets of 2k, 8k and 32k tokens.

    python -m bench handoffs [--seed N] [--output FILE]

Subjects: the root threads of two generated families (bench/families.py: the first
whose root holds at least 20 active runs, and the first with at least 200), and the
generated Claude Code and Codex session files (bench/sessions.py) imported through the
product's importers. Each subject's active runs are the covered runs of a full handoff.
Every rule is graded on the product's material with the product's estimator and
quality function (bench/fidelity.py). In-process and pure: no Neo4j, no service.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from itertools import count
from pathlib import Path

import typer

from bench import product
from bench.baselines import handoff
from bench.families import Shape, family
from bench.fidelity import BUDGETS, Row, Score, table
from bench.records import RunRecord
from bench.sessions import SHAPES, files
from graph.models import (
    CheckpointNode,
    FileDiffStat,
    RunItem,
    RunNode,
    RunStatus,
    SessionFormat,
)
from resolvers.draft import Draft
from resolvers.imports.writes import import_session, parse

RULES: dict[str, Callable[[Sequence[RunNode], int], Score]] = {
    "Threadline": product.threadline,
    "T3 Code selectHistory": handoff.t3code,
    "naive: last that fit": handoff.naive,
}
FAMILY_RUNS = (20, 200)  # a family's root is a subject from this many active runs on
FORMATS = {"claude": SessionFormat.CLAUDE_CODE_JSONL, "codex": SessionFormat.CODEX_ROLLOUT_JSONL}
IMPORTED_AT = datetime(2026, 12, 5, tzinfo=UTC)
SEED = typer.Option(7, "--seed", help="The data set: the same seed, the same subjects.")
OUTPUT = typer.Option(None, "--output", help="Also write the table here.")


def handoffs(seed: int = SEED, output: Path | None = OUTPUT) -> None:
    """Fidelity and quality of three handoff rules on generated families and sessions."""
    text = table(rows(seed))
    typer.echo(text)
    if output is not None:
        output.write_text(text)
        typer.echo(f"wrote {output}", err=True)


def rows(seed: int) -> list[Row]:
    found = []
    for name, runs in subjects(seed):
        held = sum(item.tokens for item in product.material(runs))
        label = f"{name}: {len(runs)} runs, {held:,} tokens of material"
        for rule, grade in RULES.items():
            found.append(Row(label, rule, {budget: grade(runs, budget) for budget in BUDGETS}))
    return found


def subjects(seed: int) -> list[tuple[str, list[RunNode]]]:
    found = [family_subject(seed, least) for least in FAMILY_RUNS]
    found += [(shape.name, session_runs(shape.name, seed)) for shape in SHAPES]
    return found


def family_subject(seed: int, least: int) -> tuple[str, list[RunNode]]:
    """The root thread of the first generated family with at least `least` active runs."""
    for index in count():
        root = family(index, seed, Shape(), "bench").threads[0]
        runs = [_run(record) for record in root.runs if record.status is not RunStatus.ROLLED_BACK]
        if len(runs) >= least:
            return f"family {index} root", runs
    raise AssertionError("unreachable: count() never ends")


def session_runs(name: str, seed: int) -> list[RunNode]:
    """The runs an import of generated session `name` writes."""
    shape = next(shape for shape in SHAPES if shape.name == name)
    parsed = parse(FORMATS[shape.provider], files(seed)[f"{name}.jsonl"])
    ids = count(1)
    draft = Draft(lambda prefix: f"{prefix}_{next(ids)}", IMPORTED_AT)
    import_session(draft, "bench", parsed, None, None, None)
    return draft.build().runs


def _run(record: RunRecord) -> RunNode:
    checkpoint = None
    if record.checkpoint is not None:
        checkpoint = CheckpointNode(
            id=record.checkpoint.id,
            runId=record.id,
            ref=record.checkpoint.ref,
            diffSummary=[FileDiffStat(**stat) for stat in record.checkpoint.diff_summary],
            createdAt=record.checkpoint.created_at,
        )
    return RunNode(
        id=record.id,
        threadId=record.thread_id,
        ordinal=record.ordinal,
        provider=record.provider,
        status=RunStatus(record.status),
        input=record.input,
        failureReason=record.failure_reason,
        startedAt=record.started_at,
        completedAt=record.completed_at,
        items=[RunItem(**item) for item in record.items],
        checkpoint=checkpoint,
    )
