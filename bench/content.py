"""What a coding agent's runs say and report: inputs, items and checkpoints.

One source of realistic content for the three users of it: the bulk generator (stored as
`RunItem`/`Checkpoint` nodes), the service driver (sent as `RunItemInput`/`CheckpointInput`
over GraphQL) and the summary benchmark (built into `RunNode` models). Everything is drawn
from a seeded `random.Random`, so one seed always gives the same content.

Items are plain dicts in the GraphQL input shape: `kind`, `text` and, when set, `key`,
`path`, `attributes`. Sizes are chosen so an average run reports about 1 KB.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from graph.models import RunItemKind

Item = dict[str, Any]

AREAS = (
    ("payments", ("charge.py", "retry.py", "refunds.py", "gateway.py", "idempotency.py")),
    ("auth", ("login.py", "session.py", "tokens.py", "mfa.py", "password_reset.py")),
    ("search", ("index.py", "ranking.py", "query_parser.py", "synonyms.py")),
    ("billing", ("invoice.py", "proration.py", "tax.py", "dunning.py")),
    ("web", ("routes.ts", "checkout.tsx", "cart.tsx", "api_client.ts", "forms.tsx")),
    ("infra", ("deploy.yaml", "Dockerfile", "terraform/main.tf", "ci.yml")),
)
VERBS = (
    "Fix",
    "Refactor",
    "Add tests for",
    "Speed up",
    "Document",
    "Review",
    "Split",
    "Remove the dead code in",
    "Add logging to",
    "Harden",
)
PROBLEMS = (
    "the retry path charges twice when the gateway times out",
    "sessions expire while the user is still typing",
    "the ranking ignores recent clicks",
    "invoices round the tax per line instead of per invoice",
    "the cart loses items after a page reload",
    "the deploy step does not wait for migrations",
    "a flaky test fails one run in twenty",
    "error messages leak internal ids",
)
DECISIONS = (
    "Keep the public API unchanged; add a new internal helper instead",
    "Use an idempotency key derived from the order id and attempt group",
    "Move the validation into one place and call it from both handlers",
    "Cache the lookup for 60 s; correctness does not depend on freshness",
    "Prefer a database constraint over an application-level check",
    "Retry with exponential backoff and jitter, at most 4 attempts",
    "Drop the feature flag: the new path has been on for two weeks",
)
COMMANDS = (
    "pytest -q",
    "pytest tests/{area} -k {stem}",
    "ruff check .",
    "mypy --strict {area}",
    "npm test -- {stem}",
    "alembic upgrade head",
    "make lint",
)
PROVIDER_MODELS = {"codex": "gpt-5-codex", "claude": "claude-sonnet-4-5"}


@dataclass(frozen=True)
class RunContent:
    """One user message and what the agent reported when the run completed."""

    input: str
    items: list[Item] = field(default_factory=list)
    checkpoint: dict[str, Any] | None = None  # {"ref": ..., "diffSummary": [...]}


def model_for(provider: str) -> str:
    return PROVIDER_MODELS.get(provider, f"{provider}-default")


def run_content(rng: random.Random, ordinal: int, thread_key: str) -> RunContent:
    """The content of run `ordinal` of a thread; the first run states the goal."""
    area, files = rng.choice(AREAS)
    target = rng.choice(files)
    stem = target.rsplit("/", 1)[-1].split(".")[0]
    problem = rng.choice(PROBLEMS)
    text = f"{rng.choice(VERBS)} {area}/{target}: {problem}."
    if rng.random() < 0.4:
        text += " " + _sentence(rng, 12, 40)
    items: list[Item] = []
    if ordinal == 1:
        items.append(
            {"kind": RunItemKind.USER_GOAL, "text": f"{problem.capitalize()} ({thread_key})"}
        )
        if rng.random() < 0.5:
            items.append({"kind": RunItemKind.CONSTRAINT, "text": "Do not change the public API"})
    items.append({"kind": RunItemKind.ASSISTANT_MESSAGE, "text": _sentence(rng, 20, 60)})
    if rng.random() < 0.5:
        items.append({"kind": RunItemKind.REASONING, "text": _sentence(rng, 30, 80)})
    if rng.random() < 0.5:
        items.append({"kind": RunItemKind.DECISION, "text": rng.choice(DECISIONS)})
    if rng.random() < 0.5:
        command = rng.choice(COMMANDS).format(area=area, stem=stem)
        code = 0 if rng.random() < 0.8 else 1
        items.append(
            {"kind": RunItemKind.COMMAND, "text": command, "attributes": {"exitCode": code}}
        )
    if rng.random() < 0.4:
        passed = rng.random() < 0.8
        name = f"test_{stem}_{rng.randrange(1, 40)}"
        outcome = "passed" if passed else "failed: assertion error"
        items.append(
            {
                "kind": RunItemKind.TEST,
                "text": f"{name} {outcome}",
                "key": name,
                "attributes": {"passed": passed},
            }
        )
    if rng.random() < 0.25:
        output = "\n".join(_sentence(rng, 8, 16) for _ in range(rng.randrange(6, 20)))
        items.append({"kind": RunItemKind.TOOL_OUTPUT, "text": output, "key": "pytest"})
    if rng.random() < 0.2:
        key = f"todo-{rng.randrange(1, 12)}"
        done = rng.random() < 0.5
        items.append(
            {
                "kind": RunItemKind.TODO,
                "key": key,
                "text": f"Follow up on {stem}",
                "attributes": {"done": done},
            }
        )
    if rng.random() < 0.08:
        items.append({"kind": RunItemKind.PLAN, "text": "1. reproduce 2. fix 3. test 4. clean up"})
    if rng.random() < 0.04:
        kind = rng.choice((RunItemKind.QUESTION, RunItemKind.APPROVAL))
        key = f"{kind.lower()}-{rng.randrange(1, 6)}"
        items.append(
            {
                "kind": kind,
                "key": key,
                "text": f"May I change {area}/{target}?",
                "attributes": {"resolved": rng.random() < 0.5},
            }
        )
    if rng.random() < 0.04:
        items.append(
            {"kind": RunItemKind.FAILURE, "text": f"{command_or(rng, area, stem)} keeps failing"}
        )
    stats: list[dict[str, Any]] = []
    if rng.random() < 0.5:
        for path in rng.sample([f"{area}/{name}" for name in files], k=rng.randrange(1, 3)):
            additions, deletions = rng.randrange(1, 120), rng.randrange(0, 60)
            change = "added" if rng.random() < 0.15 else "modified"
            stats.append(
                {"path": path, "additions": additions, "deletions": deletions, "changeKind": change}
            )
            items.append(_file_change(rng, path, additions, deletions, change))
    checkpoint = None
    if stats and rng.random() < 0.7:
        checkpoint = {"ref": f"ckpt-{thread_key}-{ordinal}", "diffSummary": stats}
    return RunContent(input=text, items=items, checkpoint=checkpoint)


def thread_title(rng: random.Random) -> str:
    area, files = rng.choice(AREAS)
    return f"{rng.choice(VERBS)} {area}/{rng.choice(files)}: {rng.choice(PROBLEMS)}"


def subagent_task(rng: random.Random) -> str:
    area, files = rng.choice(AREAS)
    return f"Audit every caller of {area}/{rng.choice(files)} and report what breaks."


def subagent_result(rng: random.Random) -> str:
    return f"Found {rng.randrange(1, 9)} call sites; " + _sentence(rng, 10, 30)


def command_or(rng: random.Random, area: str, stem: str) -> str:
    return rng.choice(COMMANDS).format(area=area, stem=stem)


def _file_change(rng: random.Random, path: str, additions: int, deletions: int, kind: str) -> Item:
    hunk = "\n".join(
        f"{'+' if rng.random() < 0.6 else '-'} {_sentence(rng, 4, 10)}"
        for _ in range(rng.randrange(3, 12))
    )
    diff = f"--- a/{path}\n+++ b/{path}\n@@ -1,{deletions} +1,{additions} @@\n{hunk}"
    attributes = {"additions": additions, "deletions": deletions, "changeKind": kind}
    return {"kind": RunItemKind.FILE_CHANGE, "text": diff, "path": path, "attributes": attributes}


_TEXT = (
    "the handler now checks the key before calling the gateway and returns the stored "
    "result when the same request arrives twice so retries are safe and the tests cover "
    "timeouts partial failures and concurrent attempts on one order while the logs name "
    "the attempt group and never the card number"
)
_WORDS = _TEXT.split(" ")


def _sentence(rng: random.Random, low: int, high: int) -> str:
    count = rng.randrange(low, high)
    start = rng.randrange(len(_WORDS))
    words = [_WORDS[(start + i) % len(_WORDS)] for i in range(count)]
    return " ".join(words).capitalize() + "."
