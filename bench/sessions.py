"""Generated agent sessions, in the providers' own file formats (issue 57, "The numbers").

A session is a script (`bench.session_script`): requests, each followed by what the agent
did. `bench.session_files` writes a script as a Claude Code session (JSONL), a Codex rollout or
a Gemini CLI session (JSON), the formats `resolvers.imports` reads. Four shapes make the
samples: a Claude Code debugging session, a Codex feature session, a long Claude Code
session and a Gemini CLI refactoring session. Each has long
assistant messages, long tool outputs and a failing test run followed by a passing run
of the same command. One seed always gives the same files.

    python -m bench sessions --output DIR [--seed N]
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import typer

from bench import prose
from bench.prose import Topic
from bench.session_files import file_name, written
from bench.session_script import Edit, Read, Request, Say, Session, Shell, Step, Think, Todos, Write


@dataclass(frozen=True)
class Shape:
    """A kind of session: its provider, the kinds of its requests in order (bench.prose
    REQUESTS), and how many paragraphs its longest explanations run to."""

    name: str
    provider: str
    kinds: tuple[str, ...]
    paragraphs: int


SHAPES = (
    Shape("claude-debugging", "claude", ("fix", "explain", "test", "suite"), 3),
    Shape("codex-feature", "codex", ("explain", "fix", "test", "suite", "fix", "explain"), 4),
    Shape("claude-long", "claude", ("explain", "fix", "test", "suite", "fix", "explain") * 5, 6),
)
# The samples: the shapes above, which the fidelity benchmark also measures, and a Gemini
# CLI session (a format of import only: no provider of this service runs it).
SAMPLES = (
    *SHAPES,
    Shape("gemini-refactor", "gemini", ("explain", "fix", "test", "suite", "fix"), 3),
)
MODELS = {"claude": "claude-sonnet-4-5", "codex": "gpt-5-codex", "gemini": "gemini-2.5-pro"}
DEFAULT_SEED = 7


def session(shape: Shape, seed: int) -> Session:
    rng = random.Random(f"{seed}:{shape.name}")
    about = prose.topic(rng)
    requests = tuple(_request(rng, about, kind, shape.paragraphs) for kind in shape.kinds)
    return Session(
        name=shape.name,
        provider=shape.provider,
        session_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        cwd=f"/home/dev/{about.area}-service",
        model=MODELS[shape.provider],
        started=datetime(2026, 11, 20, 9, 0, tzinfo=UTC).replace(hour=8 + rng.randrange(8)),
        requests=requests,
    )


def files(seed: int = DEFAULT_SEED) -> dict[str, str]:
    """Every shape's session file, by file name."""
    return {
        file_name(shape.name, shape.provider): written(session(shape, seed)) for shape in SAMPLES
    }


OUTPUT = typer.Option(..., "--output", help="The folder to write the sessions to.")
SEED = typer.Option(DEFAULT_SEED, "--seed", help="The same seed, the same files.")


def sessions(output: Path = OUTPUT, seed: int = SEED) -> None:
    """Write the generated Claude Code, Codex and Gemini CLI session files."""
    output.mkdir(parents=True, exist_ok=True)
    for name, text in files(seed).items():
        (output / name).write_text(text)
        typer.echo(f"wrote {output / name} ({len(text.encode()):,} bytes)")


# ---- what the agent does for each kind of request -------------------------------------


def _request(rng: random.Random, about: Topic, kind: str, paragraphs: int) -> Request:
    text = prose.request(rng, about, kind)
    steps = {"fix": _fix, "explain": _explain, "test": _test, "suite": _suite}[kind](
        rng, about, paragraphs
    )
    return Request(text, tuple(steps))


def _fix(rng: random.Random, about: Topic, paragraphs: int) -> list[Step]:
    """Read, a failing run, why it fails, the edit, the same run passing, what changed."""
    test = rng.choice(about.tests)
    command = f"pytest {about.test_path} -x"
    return [
        Say(prose.opening(rng, about)),
        Think(prose.thought(rng, about)),
        Read(about.path, prose.source(rng, about)),
        Shell(command, prose.failing_log(rng, about, test), 1),
        Say(prose.explanation(rng, about, 2)),
        _edit(rng, about),
        Shell(command, prose.passing_log(rng, about, verbose=False), 0),
        Say(prose.explanation(rng, about, paragraphs)),
    ]


def _explain(rng: random.Random, about: Topic, paragraphs: int) -> list[Step]:
    listing = "\n".join(
        f"{about.path}:{10 + 12 * n}:def {fn}(store, request, *, attempts=4):"
        for n, fn in enumerate(about.functions)
    )
    return [
        Think(prose.thought(rng, about)),
        Read(about.path, prose.source(rng, about)),
        Shell(f"grep -n 'def ' {about.path}", listing, 0),
        Say(prose.explanation(rng, about, paragraphs + 1)),
    ]


def _test(rng: random.Random, about: Topic, paragraphs: int) -> list[Step]:
    """A new test file, its first run failing, the fix, the run passing."""
    fn = rng.choice(about.functions)
    path = f"tests/{about.area}/test_{fn}.py"
    command = f"pytest {path}"
    body = "\n".join(
        f"def test_{fn}_{case}(store):\n    assert {fn}(store, make_request('{case}'))\n"
        for case in ("once", "twice", "timeout", "concurrent")
    )
    plan = (f"Write tests for {fn}", f"Run {path}", "Fix what fails")
    return [
        Say(prose.opening(rng, about)),
        Todos(tuple((step, "pending") for step in plan)),
        Write(path, body),
        Shell(command, prose.failing_log(rng, about, f"test_{fn}_concurrent"), 1),
        _edit(rng, about),
        Shell(command, prose.passing_log(rng, about, verbose=False), 0),
        Todos(tuple((step, "completed") for step in plan)),
        Say(prose.explanation(rng, about, max(1, paragraphs - 1))),
    ]


def _suite(rng: random.Random, about: Topic, paragraphs: int) -> list[Step]:
    return [
        Shell(f"pytest tests/{about.area} -v", prose.passing_log(rng, about, verbose=True), 0),
        Say(prose.explanation(rng, about, 1)),
    ]


def _edit(rng: random.Random, about: Topic) -> Edit:
    fn = rng.choice(about.functions)
    noun = fn.split("_", 1)[1]
    old = f"    {noun} = store.get(request.id)"
    new = f"    with store.lock(request.id):\n        {noun} = store.get(request.id)"
    return Edit(about.path, old, new)
