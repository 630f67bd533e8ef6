"""What a coding agent's session says: requests, explanations, source files and test logs.

The words of the generated session files (bench/sessions.py), drawn from a seeded
`random.Random` around one `Topic` (a module of a service and the problem in it), so one
seed always gives the same text. Assistant messages are long on purpose: real agents
explain a failure or a change in several paragraphs, and a handoff that keeps them whole
costs what they cost.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bench import content

# Modules the sessions work on: the benchmark's areas that are Python, where a test run
# reads like pytest.
PYTHON_AREAS = tuple(
    (area, tuple(name for name in files if name.endswith(".py")))
    for area, files in content.AREAS
    if any(name.endswith(".py") for name in files)
)
ACTIONS = ("load", "check", "apply", "record", "resolve", "build", "release", "merge")
NOUNS = ("attempt", "key", "window", "batch", "entry", "token", "state", "limit")


@dataclass(frozen=True)
class Topic:
    """What a session is about: one module, its functions, its test file, a problem."""

    area: str
    path: str
    functions: tuple[str, ...]
    tests: tuple[str, ...]
    problem: str
    decision: str

    @property
    def stem(self) -> str:
        return self.path.rsplit("/", 1)[-1].removesuffix(".py")

    @property
    def test_path(self) -> str:
        return f"tests/{self.area}/test_{self.stem}.py"


def topic(rng: random.Random) -> Topic:
    area, files = rng.choice(PYTHON_AREAS)
    name = rng.choice(files)
    functions = tuple(
        f"{action}_{noun}"
        for action, noun in zip(rng.sample(ACTIONS, 4), rng.sample(NOUNS, 4), strict=True)
    )
    stem = name.removesuffix(".py")
    tests = tuple(f"test_{stem}_{fn}" for fn in functions)
    return Topic(
        area=area,
        path=f"{area}/{name}",
        functions=functions,
        tests=tests,
        problem=rng.choice(content.PROBLEMS),
        decision=rng.choice(content.DECISIONS),
    )


REQUESTS = {
    "fix": (
        "In {path}, {problem}. Find the cause, fix it and make {test_path} pass.",
        "{test_path} fails on main since yesterday: {problem}. Please fix {path}.",
    ),
    "explain": (
        "Before we change anything: explain how {fn} in {path} decides what to do, "
        "and why {problem}.",
        "Walk me through {path}. I want to understand {fn} and {fn2} before the review.",
    ),
    "test": (
        "Add a regression test for {fn} covering the case where {problem}.",
        "Write tests for {fn2} in {test_path}; the current ones miss the error paths.",
    ),
    "suite": (
        "Run the whole {area} suite again and tell me if anything else broke.",
        "Run the {area} tests with -v and summarise what they cover now.",
    ),
}

# Sentences an explanation is made of; each paragraph draws a few, without repeats.
SENTENCES = (
    "The failure comes from {fn}: it reads the {noun} before the lock is taken, so two "
    "callers can both see the old value and both go on.",
    "{fn2} assumes that {fn} has already run, but the retry path in {path} calls it "
    "directly, which is why {problem}.",
    "The test {test} reproduces this: it starts two attempts with the same {noun} and "
    "asserts that only one of them is recorded.",
    "I changed {fn} so that it checks the stored {noun} first and returns the earlier "
    "result when the same request arrives twice.",
    "The change is small on purpose: {decision}.",
    "Nothing outside {area} calls {fn2}, so the change stays inside {path} and its tests.",
    "The first run failed with an assertion error on the second {noun}; after the change "
    "the same command passes, and the rest of {test_path} still passes too.",
    "One thing I did not change: {fn3} still logs the raw {noun}, which is noisy but "
    "harmless; it is worth a follow-up once this lands.",
    "If you prefer a database constraint instead, the migration would add a unique index "
    "on the {noun} column and {fn} would catch the conflict.",
    "The timeout in {fn3} is the other half of the story: when the gateway is slow, the "
    "caller retries before the first attempt has written its {noun}.",
    "I read {path} from top to bottom; {fn} and {fn2} are the only places that write "
    "the {noun}, and both now go through the same helper.",
    "The tests cover the happy path, a timeout, a partial failure and two concurrent "
    "attempts; the concurrent one is the case that failed before.",
    "There is no behaviour change for callers that send each request once, which is "
    "almost all of them according to the logs.",
    "I kept the public signature of {fn} unchanged so the other services need no release.",
    "Running {test_path} takes under a second, so it stays in the default suite.",
)


def request(rng: random.Random, about: Topic, kind: str) -> str:
    return rng.choice(REQUESTS[kind]).format(**_words(rng, about))


def opening(rng: random.Random, about: Topic) -> str:
    """A short first message, before the agent's first tool call."""
    return rng.choice(
        (
            "I'll start by reading {path} and running {test_path}.",
            "Let me look at {fn} first, then run the tests to see the failure.",
            "First I'll reproduce it with the existing tests.",
        )
    ).format(**_words(rng, about))


def explanation(rng: random.Random, about: Topic, paragraphs: int) -> str:
    """Several paragraphs of three or four sentences each."""
    chosen = []
    for _ in range(paragraphs):
        picked = rng.sample(SENTENCES, rng.randrange(3, 5))
        chosen.append(" ".join(s.format(**_words(rng, about)) for s in picked))
    return "\n\n".join(chosen)


def thought(rng: random.Random, about: Topic) -> str:
    fn = rng.choice(about.functions)
    return f"The {about.area} tests should show where {fn} goes wrong; read {about.path}."


def source(rng: random.Random, about: Topic) -> str:
    """The module's text: a docstring and one function per name, long enough to matter."""
    lines = [f'"""{about.area.capitalize()}: {about.stem}."""', "", "import logging", ""]
    for fn in about.functions:
        noun = fn.split("_", 1)[1]
        lines += [
            "",
            f"def {fn}(store, request, *, attempts=4):",
            f'    """{fn.replace("_", " ").capitalize()} for one request."""',
            f"    {noun} = store.get(request.id)",
            f"    if {noun} is not None and {noun}.done:",
            f"        return {noun}.result",
        ]
        for step in range(rng.randrange(3, 9)):
            lines.append(f"    logging.debug('{fn} step {step}: %s', request.id)")
        lines += [f"    return store.put(request.id, {noun})", ""]
    return "\n".join(lines)


def failing_log(rng: random.Random, about: Topic, test: str) -> str:
    """pytest's output for a run with one failure: long, as real tracebacks are."""
    passed = rng.randrange(4, 15)
    frames = []
    for fn in rng.sample(about.functions, 3):
        frames += [
            f"{about.path}:{rng.randrange(10, 90)}: in {fn}",
            f"    return store.put(request.id, {fn.split('_', 1)[1]})",
        ]
    return "\n".join(
        [
            "============================= test session starts ==============================",
            "platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0",
            f"collected {passed + 1} items",
            "",
            f"{about.test_path} {'.' * passed}F",
            "",
            "=================================== FAILURES ===================================",
            f"_{'_' * 20} {test} {'_' * 20}",
            "",
            "    def " + test + "(store):",
            "        first = submit(store, request_id='r-1')",
            "        second = submit(store, request_id='r-1')",
            ">       assert store.count('r-1') == 1",
            "E       AssertionError: assert 2 == 1",
            "E        +  where 2 = <Store>.count('r-1')",
            "",
            *frames,
            "=========================== short test summary info ============================",
            f"FAILED {about.test_path}::{test} - AssertionError: assert 2 == 1",
            f"========================= 1 failed, {passed} passed in 0.{rng.randrange(10, 99)}s "
            "==========================",
        ]
    )


def passing_log(rng: random.Random, about: Topic, verbose: bool) -> str:
    count = rng.randrange(8, 40)
    lines = ["============================= test session starts =============================="]
    if verbose:
        names = [*about.tests, *(f"test_{about.stem}_case_{n}" for n in range(count))]
        lines += [f"{about.test_path}::{name} PASSED" for name in names]
    lines.append(f"============================== {count} passed in 0.{rng.randrange(10, 99)}s ===")
    return "\n".join(lines)


def _words(rng: random.Random, about: Topic) -> dict[str, str]:
    fn, fn2, fn3 = rng.sample(about.functions, 3)
    return {
        "area": about.area,
        "path": about.path,
        "test_path": about.test_path,
        "problem": about.problem,
        "decision": about.decision[0].lower() + about.decision[1:],
        "fn": fn,
        "fn2": fn2,
        "fn3": fn3,
        "noun": fn.split("_", 1)[1],
        "test": rng.choice(about.tests),
    }
