"""Reading Claude Code session files and Codex rollouts, without a database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.errors import ErrorCode, ThreadlineError
from graph.models import RunItemKind, SessionFormat
from resolvers.imports import claude_code, codex
from resolvers.imports.pieces import pieces
from resolvers.imports.writes import parse

SESSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"


def read(name: str) -> str:
    return (SESSIONS / name).read_text()


def kinds(run: object) -> list[RunItemKind]:
    return [item.kind for item in run.items()]  # type: ignore[attr-defined]


def test_claude_code_requests_are_runs_and_injected_lines_are_not() -> None:
    session = claude_code.parse(read("claude_code.jsonl"))
    assert (session.provider, session.cwd) == ("claude", "/home/dev/shop")
    assert [run.input for run in session.runs] == [
        "Customers are charged twice when a payment is retried. Find out why.",
        "Add an idempotency key to every charge request.",
    ]
    first, second = session.runs
    assert kinds(first)[:2] == [RunItemKind.USER_GOAL, RunItemKind.REASONING]
    command = next(i for i in first.items() if i.kind is RunItemKind.COMMAND)
    assert command.attributes == {"exitCode": 1}
    edits = [(i.path, i.attributes) for i in second.items() if i.kind is RunItemKind.FILE_CHANGE]
    assert edits == [
        ("payments/charge.py", {"changeKind": "modified", "additions": 2, "deletions": 1}),
        ("payments/idempotency.py", {"changeKind": "written", "additions": 2, "deletions": 0}),
    ]
    assert first.model == "claude-sonnet-4-5" and first.completedAt > first.startedAt


def test_codex_rollouts_skip_what_codex_injects_and_read_exit_codes() -> None:
    session = codex.parse(read("codex_rollout_longer.jsonl"))
    assert session.provider == "codex" and session.sessionId.startswith("0199a3b4")
    assert [run.input for run in session.runs] == [
        "Port the idempotency fix to the refunds service.",
        "Run the whole refunds suite again.",
        "Add a test for concurrent refunds.",
    ]
    commands = [
        (i.text, (i.attributes or {}).get("exitCode"))
        for run in session.runs
        for i in run.items()
        if i.kind is RunItemKind.COMMAND
    ]
    assert commands == [
        ("pytest tests/refunds", 1),
        ("pytest tests/refunds", 0),
        ("pytest tests/refunds -q", 0),
        ("pytest tests/refunds -k concurrent", 1),
    ]
    patched = [i.path for i in session.runs[0].items() if i.kind is RunItemKind.FILE_CHANGE]
    assert patched == ["refunds/client.py", "refunds/keys.py"]
    assert session.runs[0].model == "gpt-5-codex"


def test_a_longer_copy_keeps_the_fingerprints_of_the_runs_it_shares() -> None:
    for session_format, short, longer in (
        (SessionFormat.CLAUDE_CODE_JSONL, "claude_code.jsonl", "claude_code_longer.jsonl"),
        (SessionFormat.CODEX_ROLLOUT_JSONL, "codex_rollout.jsonl", "codex_rollout_longer.jsonl"),
    ):
        before = [run.fingerprint for run in parse(session_format, read(short)).runs]
        after = [run.fingerprint for run in parse(session_format, read(longer)).runs]
        assert after[: len(before)] == before and len(set(after)) == len(after)


@pytest.mark.parametrize(
    ("session_format", "name", "says"),
    [
        (SessionFormat.CLAUDE_CODE_JSONL, "codex_rollout.jsonl", "CODEX_ROLLOUT_JSONL"),
        (SessionFormat.CODEX_ROLLOUT_JSONL, "claude_code.jsonl", "CLAUDE_CODE_JSONL"),
    ],
)
def test_a_file_of_the_other_format_is_named(
    session_format: SessionFormat, name: str, says: str
) -> None:
    with pytest.raises(ThreadlineError) as refused:
        parse(session_format, read(name))
    assert refused.value.code is ErrorCode.INVALID_INPUT and says in refused.value.message


def test_a_malformed_line_is_named_by_its_number() -> None:
    lines = read("codex_rollout.jsonl").splitlines()
    lines[3] = "not json"
    with pytest.raises(ThreadlineError) as refused:
        codex.parse("\n".join(lines))
    assert "Line 4" in refused.value.message


def test_unknown_line_types_are_skipped() -> None:
    content = read("claude_code.jsonl") + '{"type": "brand-new", "sessionId": "x"}\n'
    assert len(claude_code.parse(content).runs) == 2


def test_pieces_hold_whole_runs_after_the_sessions_own_lines() -> None:
    content = read("claude_code_longer.jsonl")
    session = claude_code.parse(content)
    cut = pieces(content, session, max_chars=len(content) // 3)
    assert len(cut) == 3  # one run each: a third of the file holds no two
    inputs = [[run.input for run in claude_code.parse(piece).runs] for piece in cut]
    assert inputs == [[run.input] for run in session.runs]
    assert pieces(content, session, max_chars=10 * len(content)) == [content]


def test_a_claude_code_message_whose_content_is_a_string_is_kept() -> None:
    lines = [
        '{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z",'
        '"message":{"role":"user","content":"Add a test."}}',
        '{"type":"assistant","sessionId":"s1","timestamp":"2026-01-01T00:00:05Z",'
        '"message":{"role":"assistant","content":"Test added in tests/test_pay.py."}}',
    ]
    (run,) = claude_code.parse("\n".join(lines)).runs
    said = [(i.kind, i.text) for i in run.items() if i.kind is RunItemKind.ASSISTANT_MESSAGE]
    assert said == [(RunItemKind.ASSISTANT_MESSAGE, "Test added in tests/test_pay.py.")]


# ---- keys: what a tool's output answers, a message's native id -----------------------


def outputs(session: object) -> list[tuple[str | None, str]]:
    return [
        (i.key, i.text)
        for run in session.runs  # type: ignore[attr-defined]
        for i in run.items()
        if i.kind is RunItemKind.TOOL_OUTPUT
    ]


def test_claude_code_outputs_are_keyed_by_the_call_they_answer() -> None:
    session = claude_code.parse(read("claude_code_test_runs.jsonl"))
    keys = [key for key, _ in outputs(session)]
    assert keys == [
        "Bash:toolu_01Hk7Rb2",  # the failing test run
        "Read:ledger/money.py",  # a read: the resource it reads, relative to the cwd
        "Edit:toolu_01Hk7Rd4",
        "Edit:toolu_01Hk7Re1",
        "Bash:toolu_01Hk7Rf8",  # the passing one: another call, so another key
    ]


def test_a_read_of_the_same_resource_again_has_the_same_key() -> None:
    def read_call(n: int, given: dict[str, object]) -> list[str]:
        at = f"2026-01-01T00:00:0{n}Z"
        call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": given}
        result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": f"text {n}"}
        return [
            json.dumps(
                {
                    "type": kind,
                    "sessionId": "s1",
                    "timestamp": at,
                    "message": {"role": kind, "content": [part]},
                }
            )
            for kind, part in (("assistant", call), ("user", result))
        ]

    lines = [
        '{"type":"user","sessionId":"s1","cwd":"/w","timestamp":"2026-01-01T00:00:00Z",'
        '"message":{"role":"user","content":"Look at the app."}}',
        *read_call(1, {"file_path": "/w/app.py"}),
        *read_call(2, {"file_path": "/w/app.py", "offset": 10, "limit": 20}),
        *read_call(3, {"file_path": "/w/app.py"}),
    ]
    keys = [key for key, _ in outputs(claude_code.parse("\n".join(lines)))]
    assert keys == ["Read:app.py", "Read:app.py#offset=10,limit=20", "Read:app.py"]


def test_codex_outputs_are_keyed_by_their_call_id() -> None:
    keys = [key for key, _ in outputs(codex.parse(read("codex_test_runs.jsonl")))]
    assert keys == ["shell:call_9pQ2mT4x", "apply_patch:call_9pQ2mU7y", "shell:call_9pQ2mV3z"]


def test_an_output_whose_call_names_no_id_has_no_key() -> None:
    lines = [
        '{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z",'
        '"message":{"role":"user","content":"Run it."}}',
        '{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z",'
        '"message":{"role":"user","content":[{"type":"tool_result","content":"done"}]}}',
    ]
    assert outputs(claude_code.parse("\n".join(lines))) == [(None, "done")]


def test_claude_code_items_keep_their_lines_uuid_but_the_goal_does_not() -> None:
    session = claude_code.parse(read("claude_code_test_runs.jsonl"))
    (run,) = session.runs
    keyed = {i.kind: i.key for i in run.items() if i.kind is not RunItemKind.TOOL_OUTPUT}
    # A goal with a key would be named by it in quality's `missing`, and carried only by
    # its words anyway; the first request's goal keeps none.
    assert keyed[RunItemKind.USER_GOAL] is None
    replies = [i.key for i in run.items() if i.kind is RunItemKind.ASSISTANT_MESSAGE]
    assert replies == [
        "5a1f0c2e-0000-4000-8000-000000000003",
        "5a1f0c2e-0000-4000-8000-000000000006",
        "5a1f0c2e-0000-4000-8000-000000000015",
    ]


def test_a_codex_message_keeps_its_id_when_the_rollout_has_one() -> None:
    lines = [
        '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c1"}}',
        '{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message",'
        '"role":"user","content":[{"type":"input_text","text":"Go."}]}}',
        '{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message",'
        '"id":"msg_7","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}',
        '{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"message",'
        '"role":"assistant","content":[{"type":"output_text","text":"And more."}]}}',
    ]
    (run,) = codex.parse("\n".join(lines)).runs
    said = [(i.text, i.key) for i in run.items() if i.kind is RunItemKind.ASSISTANT_MESSAGE]
    assert said == [("Done.", "msg_7"), ("And more.", None)]
