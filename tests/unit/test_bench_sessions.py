"""The benchmark's generated session files import through the product's own importers
(the pure import planning of resolvers/imports/writes.py), run for run, with every
assistant message whole and every tool output there."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count
from pathlib import Path

import pytest

from bench.session_files import file_name
from bench.session_script import Say, Shell
from bench.sessions import SAMPLES as SHAPES
from bench.sessions import Shape, files, session
from graph.models import RunItemKind, RunNode, SessionFormat
from resolvers.draft import Draft
from resolvers.imports.detect import detect
from resolvers.imports.writes import import_session, parse

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "generated"
FORMATS = {
    "claude": SessionFormat.CLAUDE_CODE_JSONL,
    "codex": SessionFormat.CODEX_ROLLOUT_JSONL,
    "gemini": SessionFormat.GEMINI_CLI_JSON,
}


def imported(shape: Shape, text: str) -> list[RunNode]:
    ids = count(1)
    draft = Draft(lambda prefix: f"{prefix}_{next(ids)}", datetime(2026, 12, 5, tzinfo=UTC))
    import_session(draft, "bench", parse(FORMATS[shape.provider], text), None, None, None)
    return draft.build().runs


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_a_generated_session_imports_request_for_request(shape: Shape) -> None:
    script = session(shape, 7)
    runs = imported(shape, files(7)[file_name(shape.name, shape.provider)])
    assert [run.input for run in runs] == [request.text for request in script.requests]
    assert all(run.provider == shape.provider for run in runs)
    for run, request in zip(runs, script.requests, strict=True):
        said = [step.text for step in request.steps if isinstance(step, Say)]
        messages = [item.text for item in run.items if item.kind is RunItemKind.ASSISTANT_MESSAGE]
        assert messages == said  # whole: several paragraphs, line breaks and all
        shells = [step for step in request.steps if isinstance(step, Shell)]
        outputs = [item for item in run.items if item.kind is RunItemKind.TOOL_OUTPUT]
        assert len(outputs) >= len(shells) > 0


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_a_failing_test_run_is_followed_by_the_same_command_passing(shape: Shape) -> None:
    runs = imported(shape, files(7)[file_name(shape.name, shape.provider)])
    commands = [
        (item.text, (item.attributes or {}).get("exitCode"))
        for run in runs
        for item in run.items
        if item.kind is RunItemKind.COMMAND
    ]
    failed = [text for text, code in commands if code == 1]
    assert failed
    assert all((text, 0) in commands[commands.index((text, 1)) :] for text in failed)
    errors = [
        item
        for run in runs
        for item in run.items
        if item.kind is RunItemKind.TOOL_OUTPUT and (item.attributes or {}).get("isError")
    ]
    assert len(errors) == len(failed)


def test_the_committed_samples_are_what_the_generator_writes() -> None:
    written = {path.name: path.read_text() for path in SAMPLES.iterdir()}
    assert written == files(7)


def test_each_sample_is_told_from_its_content() -> None:
    """What an import without a format relies on: every sample is its own format only."""
    for shape in SHAPES:
        text = files(7)[file_name(shape.name, shape.provider)]
        assert detect(text) is FORMATS[shape.provider], shape.name


def test_another_seed_gives_other_sessions() -> None:
    assert files(8) != files(7)
