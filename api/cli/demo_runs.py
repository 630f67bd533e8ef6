"""What the demo's runs report: the items and checkpoints a coding agent would send.

Plain data for `api/cli/demo.py`. The story: a checkout service charges customers twice
when a payment is retried; the family fixes it, explores alternatives and ports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Item = dict[str, Any]


@dataclass(frozen=True)
class RunSpec:
    """One user message and what the agent reported when the run completed."""

    input: str
    items: list[Item] = field(default_factory=list)
    files: list[tuple[str, int, int, str]] = field(default_factory=list)
    checkpoint: str | None = None

    def run_items(self) -> list[Item]:
        return [*self.items, *(file_change(*stat) for stat in self.files)]

    def checkpoint_input(self) -> dict[str, Any] | None:
        if self.checkpoint is None:
            return None
        diff = [
            {"path": path, "additions": plus, "deletions": minus, "changeKind": kind}
            for path, plus, minus, kind in self.files
        ]
        return {"ref": self.checkpoint, "diffSummary": diff}


def goal(text: str) -> Item:
    return {"kind": "USER_GOAL", "text": text}


def constraint(text: str) -> Item:
    return {"kind": "CONSTRAINT", "text": text}


def decision(text: str) -> Item:
    return {"kind": "DECISION", "text": text}


def plan(text: str) -> Item:
    return {"kind": "PLAN", "text": text}


def todo(key: str, text: str, done: bool = False) -> Item:
    return {"kind": "TODO", "key": key, "text": text, "attributes": {"done": done}}


def command(text: str, exit_code: int = 0) -> Item:
    return {"kind": "COMMAND", "text": text, "attributes": {"exitCode": exit_code}}


def ran_test(name: str, passed: bool, detail: str = "") -> Item:
    outcome = "passed" if passed else "failed"
    return {
        "kind": "TEST",
        "text": f"{name} {outcome}{': ' + detail if detail else ''}",
        "key": name,
        "attributes": {"passed": passed},
    }


def question(key: str, text: str, resolved: bool = False) -> Item:
    return {"kind": "QUESTION", "key": key, "text": text, "attributes": {"resolved": resolved}}


def approval(key: str, text: str, resolved: bool = False) -> Item:
    return {"kind": "APPROVAL", "key": key, "text": text, "attributes": {"resolved": resolved}}


def failure(text: str) -> Item:
    return {"kind": "FAILURE", "text": text}


def tool_output(key: str, text: str) -> Item:
    return {"kind": "TOOL_OUTPUT", "key": key, "text": text}


def reasoning(text: str) -> Item:
    # Never summarised; here so the demo shows that it is left out of handoffs.
    return {"kind": "REASONING", "text": text}


def file_change(path: str, additions: int, deletions: int, kind: str) -> Item:
    # The text carries the diff; summaries name only the path and the stats.
    diff = f"--- a/{path}\n+++ b/{path}\n@@ (+{additions} -{deletions}) @@"
    attributes = {"additions": additions, "deletions": deletions, "changeKind": kind}
    return {"kind": "FILE_CHANGE", "text": diff, "path": path, "attributes": attributes}


# Runs 1-5 (codex), 6-8 (claude), 9 (codex): SEMANTICS "Canonical example".
ROOT_RUNS: list[RunSpec] = [
    RunSpec(
        "Customers are charged twice when a payment is retried. Find out why.",
        [
            goal("Stop double charges on payment retries"),
            constraint("Do not change the public /charge API"),
            command("pytest tests/payments -k retry", exit_code=1),
            ran_test("test_retry_after_timeout", False, "two charges recorded"),
            decision("The retry loop re-sends the charge without an idempotency key"),
            reasoning("The gateway treats each request as new..."),
        ],
    ),
    RunSpec(
        "Add an idempotency key to every charge request.",
        [
            decision("Derive the key from order id + attempt group, not a random UUID"),
            plan("1. key on requests 2. store keys 3. reuse on retry 4. tests"),
            todo("store-keys", "Persist idempotency keys"),
        ],
        files=[
            ("payments/charge.py", 42, 7, "modified"),
            ("payments/idempotency.py", 88, 0, "added"),
        ],
        checkpoint="ckpt-root-2",
    ),
    RunSpec(
        "Store the keys in Postgres with a 24 h TTL.",
        [
            command("alembic upgrade head"),
            ran_test("test_key_is_reused_on_retry", True),
            todo("store-keys", "Persist idempotency keys", done=True),
        ],
        files=[("migrations/0042_idempotency_keys.sql", 31, 0, "added")],
        checkpoint="ckpt-root-3",
    ),
    RunSpec(
        "Run the whole payments suite.",
        [
            command("pytest tests/payments"),
            tool_output("pytest", "212 passed, 3 skipped in 41.2s"),
            ran_test("tests/payments", True, "212 passed"),
        ],
    ),
    RunSpec(
        "Simplify the retry loop now that retries are safe.",
        [decision("Exponential backoff with jitter, max 4 attempts")],
        files=[("payments/retry.py", 18, 35, "modified")],
        checkpoint="ckpt-root-5",
    ),
    RunSpec(
        "Review the change for race conditions between concurrent retries.",
        [
            decision("Lock the key row with SELECT ... FOR UPDATE before charging"),
            question("q-ttl", "Is 24 h long enough for bank transfers that settle late?"),
        ],
        files=[("payments/idempotency.py", 12, 3, "modified")],
    ),
    RunSpec(
        "Write a test with two concurrent retries of the same charge.",
        [
            command("pytest tests/payments/test_concurrent_retry.py"),
            ran_test("test_concurrent_retry_charges_once", True),
        ],
        files=[("tests/payments/test_concurrent_retry.py", 64, 0, "added")],
        checkpoint="ckpt-root-7",
    ),
    RunSpec(
        "Document the idempotency contract for the other teams.",
        [approval("deploy-docs", "Publish docs/payments.md to the developer portal?")],
        files=[("docs/payments.md", 57, 4, "modified")],
    ),
    RunSpec(
        "Send the idempotency key from the mobile client too.",
        [
            question("q-ttl", "Is 24 h long enough?", resolved=True),
            ran_test("mobile/ChargeClientTest", True),
        ],
        files=[("mobile/src/ChargeClient.kt", 23, 5, "modified")],
        checkpoint="ckpt-root-9",
    ),
]

NATIVE_FORK_RUNS: list[RunSpec] = [
    RunSpec(
        "Try Redis instead of Postgres for the idempotency keys.",
        [decision("SET NX with a TTL replaces the table and the row lock")],
        files=[("payments/idempotency_redis.py", 71, 0, "added")],
        checkpoint="ckpt-redis-1",
    ),
    RunSpec(
        "Benchmark Redis against Postgres under 500 concurrent retries.",
        [
            command("python bench/retry_storm.py --backend redis --workers 500"),
            tool_output("bench", "p99 3.1 ms (redis) vs 11.8 ms (postgres)"),
            decision("Keep Postgres: 11.8 ms p99 is fine and avoids a new dependency"),
        ],
    ),
    RunSpec(
        "Write up why we keep Postgres.",
        [decision("Redis only pays off above 5k retries per second")],
        files=[("docs/adr/0007-idempotency-store.md", 40, 0, "added")],
    ),
]

PORTABLE_FORK_RUNS: list[RunSpec] = [
    RunSpec(
        "Port the fix to the legacy checkout (Python 2.7 branch).",
        [
            constraint("No new dependencies on the legacy branch"),
            decision("Backport the key derivation; keep the old retry loop"),
        ],
        files=[("legacy/payments/charge.py", 38, 6, "modified")],
        checkpoint="ckpt-legacy-1",
    ),
    RunSpec(
        "Also rewrite the legacy retry loop.",
        [failure("legacy suite: 14 failures after rewriting the retry loop")],
        files=[("legacy/payments/retry.py", 90, 61, "modified")],
    ),
    RunSpec(
        "Fix the 14 legacy failures.",
        [command("tox -e py27", exit_code=1)],
        files=[("legacy/payments/retry.py", 25, 40, "modified")],
    ),
]

SUBAGENT_TASK = "Audit every call site of charge() for a missing idempotency key."
SUBAGENT_RUN = RunSpec(
    "Audit the call sites.",
    [
        command("rg -n 'charge\\(' --type py"),
        decision("3 call sites lacked the key: refunds, subscriptions, admin retries"),
    ],
    files=[
        ("payments/refunds.py", 6, 1, "modified"),
        ("billing/subscriptions.py", 9, 2, "modified"),
    ],
)
SUBAGENT_START_FAILURE = "claude: session limit reached (429)"
SUBAGENT_RESULT = "Added the key at 3 call sites (refunds, subscriptions, admin retries)."

NATIVE_SUBAGENT_RUN = RunSpec(
    "Profile the key lookup.",
    [
        command("py-spy record -o lookup.svg -- python bench/lookup.py"),
        decision("The lookup uses the primary key index; no change needed"),
    ],
)
NATIVE_SUBAGENT_RESULT = "Key lookup costs 0.4 ms at p99; it is not worth a cache."

MERGE_RUN = RunSpec(
    "Bring back what the Redis experiment found.",
    [decision("Stay on Postgres; keep the Redis ADR for later")],
)
REVIEW_RUN = RunSpec(
    "Plan mode: review the whole change and split the remaining work.",
    [plan("1. audit call sites (subagent) 2. profile lookups (subagent) 3. release")],
)
RELEASE_RUN = RunSpec(
    "Apply what the subagents found and prepare the release.",
    [
        decision("Ship behind the idempotent_charges flag, 10% rollout first"),
        todo("rollout", "Raise the flag to 100% after a week without double charges"),
        command("make release-notes"),
    ],
    files=[("CHANGELOG.md", 9, 0, "modified")],
    checkpoint="ckpt-root-12",
)
