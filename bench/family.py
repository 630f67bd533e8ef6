"""`python -m bench family`: does the lineage page's query, and the page, hold up on a
large family?

Through the GraphQL API of a `threadline serve` process (every mutation with a
`commandId`), the harness builds two families: one of 2,000 threads and one of 10, each a
root with forks, forks of forks and spawned subagents (depth up to 8, fan-out drawn
unevenly: most threads have no children, a few have many), every thread with at least one
run. It then times the page's own query (`static/lineage/family.graphql`, fetched from
the served page, on the root, BOTH, depth 10) on both, interleaved, and reports the median
time per returned node of the large family over the small one's (target at most 1.5), the
Bolt round trips of each, the total time and the size of the answer. Last, it opens the
page on the large family's root in Chromium (Playwright, the system's browser as the
browser tests use) and reads how long after navigation the graph was drawn
(`window.threadlineGraph.renderedAt`), and what the page collapsed.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from bench import service
from bench.cli import NEO4J_PASSWORD, OTHER_NEO4J_URI, OTHER_OUTPUT
from bench.client import FORK_AT_RUN, SPAWN, GraphQL, ServiceThread, command_id
from bench.measure import Log, stderr_log
from graph.models import LineageDirection, ThreadRelationship

WORKSPACE = "family"
LARGE, SMALL = 2000, 10
MAX_DEPTH = 8
PAGE_DEPTH = 10  # the page's default depth: the whole family from its root
TARGET_RATIO = 1.5
RENDER_TARGET_S = 3.0
CHROMIUM = Path(os.environ.get("THREADLINE_CHROMIUM", "/usr/bin/chromium"))


@dataclass(frozen=True)
class Planned:
    """One thread of a family's shape: its parent (an index), how it was opened, its runs."""

    index: int
    parent: int | None
    kind: ThreadRelationship | str  # ROOT, or how it was opened
    depth: int
    runs: int


def shape(size: int, seed: int) -> list[Planned]:
    """A tree of `size` threads, parents before children. Half the new threads join a
    parent in proportion to the children it has already (a few threads fan out widely, as
    a run that spawns many subagents does), half a parent picked uniformly (long chains of
    forks of forks); nothing deeper than MAX_DEPTH."""
    rng = random.Random(seed)
    plan = [Planned(0, None, "ROOT", 0, 3)]
    tickets = [0]  # a thread appears once, plus once per child
    while len(plan) < size:
        pool = tickets if rng.random() < 0.5 else range(len(plan))
        parent = plan[rng.choice(pool)]
        if parent.depth >= MAX_DEPTH:
            continue
        kind = ThreadRelationship.SUBAGENT if rng.random() < 0.4 else ThreadRelationship.FORK
        runs = 2 if rng.random() < 0.2 else 1
        plan.append(Planned(len(plan), parent.index, kind, parent.depth + 1, runs))
        tickets += [parent.index, len(plan) - 1]
    return plan


@dataclass
class Built:
    root: str
    threads: int
    depth: int
    widest: int  # most children of one thread
    seconds: float
    requests: int


async def build(gql: GraphQL, plan: list[Planned], seed: int, clients: int, log: Log) -> Built:
    """Every thread of `plan` through the API, a generation at a time, `clients` at once.
    A thread's subagents are spawned while its last run is in progress (only a run in
    progress can spawn one); its forks are made in the next generation, at its latest run."""
    ids: dict[int, str] = {}
    last_run: dict[int, str] = {}  # what a fork is made at
    subagents: dict[int, list[Planned]] = {}
    for p in plan:
        if p.kind is ThreadRelationship.SUBAGENT and p.parent is not None:
            subagents.setdefault(p.parent, []).append(p)
    gate = asyncio.Semaphore(clients)
    requests = 0
    began = time.perf_counter()

    async def make(p: Planned) -> None:
        nonlocal requests
        rng = random.Random(f"{seed}:{len(plan)}:{p.index}")
        async with gate:
            title = f"{p.kind.lower()} {p.index} at depth {p.depth}"
            if p.kind == "ROOT":
                thread = await ServiceThread.create(gql, rng, title)
            elif p.kind is ThreadRelationship.FORK:
                source = p.parent or 0
                forked = await _fork(gql, (ids[source], last_run[source]), rng, title)
                thread = ServiceThread(gql, forked, rng)
            else:
                thread = ServiceThread(gql, ids[p.index], rng)
            spawned = subagents.get(p.index, [])

            async def spawn(run_id: str) -> None:
                for child in spawned:
                    ids[child.index] = await _spawn(gql, run_id, child, rng)

            for n in range(p.runs):
                cycle = await thread.cycle(during=spawn if n == p.runs - 1 else None)
                last_run[p.index] = cycle.run_id
            ids[p.index] = thread.thread_id
            requests += (p.kind is ThreadRelationship.FORK) + 3 * p.runs + len(spawned)

    for depth in range(MAX_DEPTH + 1):
        generation = [p for p in plan if p.depth == depth]
        await asyncio.gather(*(make(p) for p in generation))
        if generation:
            log(f"  depth {depth}: {len(generation)} threads ({len(ids)} of {len(plan)})")
    children: dict[int, int] = {}
    for p in plan:
        if p.parent is not None:
            children[p.parent] = children.get(p.parent, 0) + 1
    return Built(
        ids[0],
        len(plan),
        max(p.depth for p in plan),
        max(children.values(), default=0),
        time.perf_counter() - began,
        requests + 1,
    )


async def _fork(gql: GraphQL, source: tuple[str, str], rng: random.Random, title: str) -> str:
    """A fork of thread `source[0]` at its run `source[1]`."""
    data = await gql(
        FORK_AT_RUN, id=source[0], runId=source[1], title=title, commandId=command_id(rng)
    )
    return str(data["forkThread"]["id"])


async def _spawn(gql: GraphQL, run_id: str, child: Planned, rng: random.Random) -> str:
    task = f"subagent task {child.index}: check part {child.index % 7} of the parent's change"
    data = await gql(SPAWN, runId=run_id, task=task, provider="codex", commandId=command_id(rng))
    return str(data["spawnSubagent"]["id"])


# ---- the lineage query -----------------------------------------------------------------


@dataclass
class Timing:
    nodes: int
    seconds: list[float] = field(default_factory=list)
    round_trips: int = 0
    response_bytes: int = 0

    @property
    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1000

    @property
    def per_node_ms(self) -> float:
        return self.median_ms / self.nodes


async def _answer_bytes(gql: GraphQL, query: str, variables: dict[str, Any]) -> int:
    async with gql.http.post("/graphql", json={"query": query, "variables": variables}) as r:
        return len(await r.read())


@dataclass(frozen=True)
class Probe:
    """One query the page sends, on one family, and how many threads its answer holds."""

    label: str
    query: str
    variables: dict[str, Any]
    threads: Callable[[dict[str, Any]], int]


async def time_probes(
    gql: GraphQL, probes: list[Probe], rounds: int, repeats: dict[str, int]
) -> dict[str, Timing]:
    """Each probe warmed twice, its round trips and answer size read once, then timed one
    request at a time, interleaved: per round `repeats[label]` times (default 1)."""
    timings: dict[str, Timing] = {}
    for probe in probes:
        for _ in range(2):
            answer = await gql(probe.query, **probe.variables)
        before = await gql.round_trips()
        await gql(probe.query, **probe.variables)
        trips = await gql.round_trips() - before
        size = await _answer_bytes(gql, probe.query, probe.variables)
        timings[probe.label] = Timing(probe.threads(answer), [], trips, size)
    for _ in range(rounds):
        for probe in probes:
            for _ in range(repeats.get(probe.label, 1)):
                began = time.perf_counter()
                await gql(probe.query, **probe.variables)
                timings[probe.label].seconds.append(time.perf_counter() - began)
    return timings


def probes(
    outline: str, boxes: str, roots: dict[str, str], drawn: dict[str, list[str]]
) -> list[Probe]:
    """The page's two queries on both families: the outline of the whole family, and the
    boxes of the threads it draws (at most BUDGET of the large one, all of the small)."""
    found: list[Probe] = []
    for label, root in roots.items():
        variables = {"thread": root, "direction": LineageDirection.BOTH, "depth": PAGE_DEPTH}
        found.append(Probe(f"outline {label}", outline, variables, _lineage_threads))
    for label, ids in drawn.items():
        found.append(Probe(f"boxes {label}", boxes, {"ids": ids}, _box_threads))
    return found


def _lineage_threads(answer: dict[str, Any]) -> int:
    return len(answer["lineage"]["nodes"])


def _box_threads(answer: dict[str, Any]) -> int:
    return len(answer["threadsById"])


# ---- the page in Chromium --------------------------------------------------------------


@dataclass
class Render:
    seconds: list[float] = field(default_factory=list)  # navigation → graph drawn, per load
    outline_seconds: list[float] = field(default_factory=list)  # → the outline answered
    boxes_seconds: list[float] = field(default_factory=list)  # → the boxes answered
    threads: list[str] = field(default_factory=list)  # the thread boxes drawn
    groups: int = 0  # "+N threads" boxes
    collapsed: int = 0  # threads inside them
    error: str = ""


RENDER_READ = """() => {
  const cy = window.threadlineGraph;
  const collapsed = cy.collapsed();
  return { renderedAt: cy.renderedAt, outline: cy.timings.outline, queried: cy.timings.queried,
           threads: window.threadline.graph().threads, groups: collapsed.length,
           collapsed: collapsed.reduce((n, g) => n + g.count, 0) };
}"""


async def render_page(api: service.Api, root: str, loads: int) -> Render:
    """The lineage page on `root`, `loads` times in fresh tabs (after one warm load)."""
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        return Render(error="Playwright is not installed (the dev extra)")
    if not await asyncio.to_thread(CHROMIUM.is_file):
        return Render(error=f"no Chromium at {CHROMIUM}")
    token = api.token(WORKSPACE)
    render = Render()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox"]
        )
        try:
            for n in range(loads + 1):
                context = await browser.new_context(viewport={"width": 1600, "height": 900})
                await context.add_init_script(
                    f"sessionStorage.setItem('threadline.token', {token!r})"
                )
                page = await context.new_page()
                await page.goto(f"{api.url}/lineage?thread={root}")
                await page.wait_for_selector("body[data-state='ready']", timeout=120_000)
                read = await page.evaluate(RENDER_READ)
                await context.close()
                render.threads, render.groups = read["threads"], read["groups"]
                render.collapsed = read["collapsed"]
                if n:  # the first load warms the server's and the browser's caches
                    render.seconds.append(read["renderedAt"] / 1000)
                    render.outline_seconds.append(read["outline"] / 1000)
                    render.boxes_seconds.append(read["queried"] / 1000)
        finally:
            await browser.close()
    return render


# ---- the report ------------------------------------------------------------------------


@dataclass
class FamilyResults:
    built: dict[str, Built]
    timings: dict[str, Timing]
    render: Render
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    machine: dict[str, str]  # the box and the versions of what ran
    command: str
    started: str

    def ratio(self, query: str) -> float:
        large, small = self.timings[f"{query} large"], self.timings[f"{query} small"]
        return large.per_node_ms / small.per_node_ms


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def _median_ms(seconds: list[float]) -> str:
    return f"{statistics.median(seconds) * 1000:.0f} ms"


def _load(average: tuple[float, float, float]) -> str:
    return " / ".join(f"{x:.2f}" for x in average)


def report(r: FamilyResults) -> str:
    lines = [
        "# Large families: the lineage page's queries and drawing",
        "",
        f"Produced by `{r.command}` (bench/README.md) on {r.started} UTC.",
        "",
        "## Machine",
        "",
        *(f"- {key}: {value}" for key, value in r.machine.items()),
        f"- load average (1 / 5 / 15 min) before: {_load(r.load_before)}, "
        f"after: {_load(r.load_after)}",
        "",
        "## What was run",
        "",
        *(
            f"- {label} family: {b.threads} threads (depth {b.depth}, at most {b.widest} "
            f"children of one thread), written through the API in {b.seconds:.0f} s "
            f"({b.requests} requests, every mutation with a commandId)"
            for label, b in r.built.items()
        ),
        "- the page's two queries, as the served page has them, one request at a time, "
        "interleaved: `family.graphql` (the outline of the whole family: BOTH, depth "
        f"{PAGE_DEPTH}, from the root) and `boxes.graphql` (what the drawn boxes show: the "
        "threads the page drew of the large family, all 10 of the small one)",
        f"- the page (`/lineage?thread=<large root>`) in Chromium at 1600 x 900, "
        f"{len(r.render.seconds)} loads after a warm one",
        "",
        "## Targets",
        "",
        "| figure | measured | target | verdict |",
        "| --- | --- | --- | --- |",
    ]
    for query in ("outline", "boxes"):
        large, small = r.timings[f"{query} large"], r.timings[f"{query} small"]
        ratio = r.ratio(query)
        lines.append(
            f"| {query} query, median per returned thread, {large.nodes} ÷ {small.nodes} | "
            f"{ratio:.2f}x ({large.per_node_ms:.3f} / {small.per_node_ms:.3f} ms) | "
            f"≤ {TARGET_RATIO}x | {_verdict(ratio <= TARGET_RATIO)} |"
        )
    if r.render.seconds:
        render_s = statistics.median(r.render.seconds)
        lines.append(
            f"| page drawn after navigation, large family (median) | {render_s:.2f} s | "
            f"< {RENDER_TARGET_S:g} s | {_verdict(render_s < RENDER_TARGET_S)} |"
        )
    else:
        lines.append(
            f"| page drawn, large family | not measured: {r.render.error} | "
            f"< {RENDER_TARGET_S:g} s | - |"
        )
    lines += [
        "",
        "## The queries",
        "",
        "| query | threads | median ms | p95 ms | per thread ms | Bolt round trips | answer |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, timing in r.timings.items():
        ordered = sorted(timing.seconds)
        p95 = ordered[int(0.95 * (len(ordered) - 1))] * 1000
        lines.append(
            f"| {label} | {timing.nodes} | {timing.median_ms:.1f} | {p95:.1f} | "
            f"{timing.per_node_ms:.3f} | {timing.round_trips} | "
            f"{timing.response_bytes / 1024:.0f} KB |"
        )
    if r.render.seconds:
        lines += [
            "",
            "## The page",
            "",
            f"Median {_median_ms(r.render.seconds)} from navigation to the graph drawn: the "
            f"outline had answered at {_median_ms(r.render.outline_seconds)}, the boxes at "
            f"{_median_ms(r.render.boxes_seconds)} (as the page measured them with "
            f"performance.now()); every load: "
            f"{', '.join(f'{s * 1000:.0f}' for s in r.render.seconds)} ms. Drawn: "
            f'{len(r.render.threads)} thread boxes and {r.render.groups} "+N threads" '
            f"boxes holding the other {r.render.collapsed} threads.",
        ]
    return "\n".join(lines) + "\n"


# ---- the command -----------------------------------------------------------------------

SEED = typer.Option(7, "--seed", help="The families' shapes and content.")
LARGE_OPTION = typer.Option(LARGE, "--large", help="Threads of the large family.")
CLIENTS = typer.Option(4, "--clients", help="Concurrent writers while building.")
ROUNDS = typer.Option(40, "--rounds", help="Timed queries of the large family.")
LOADS = typer.Option(5, "--loads", help="Timed page loads in Chromium.")


async def _run(
    api: service.Api, settings: tuple[int, int, int, int, int], log: Log
) -> tuple[dict[str, Built], dict[str, Timing], Render]:
    seed, large, clients, rounds, loads = settings
    gql = GraphQL(api.url, api.token(WORKSPACE))
    try:
        built = {}
        for label, size in (("small", SMALL), ("large", large)):
            log(f"building the {label} family ({size} threads) through the API")
            built[label] = await build(gql, shape(size, seed + size), seed, clients, log)
        log(f"opening the page in Chromium ({loads} loads)")
        render = await render_page(api, built["large"].root, loads)
        outline, boxes = [await _static(gql, name) for name in ("family", "boxes")]
        roots = {label: b.root for label, b in built.items()}
        small = await gql(
            outline, thread=roots["small"], direction=LineageDirection.BOTH, depth=PAGE_DEPTH
        )
        drawn = {
            "large": render.threads or [],
            "small": [node["thread"]["id"] for node in small["lineage"]["nodes"]],
        }
        if not drawn["large"]:
            raise typer.BadParameter(f"the page drew nothing: {render.error}")
        log(f"timing the page's queries ({rounds} rounds)")
        found = probes(outline, boxes, roots, drawn)
        timings = await time_probes(gql, found, rounds, {"outline small": 5, "boxes small": 5})
    finally:
        await gql.close()
    return built, timings, render


async def _static(gql: GraphQL, name: str) -> str:
    """One of the page's queries, as the service serves it to the page."""
    async with gql.http.get(f"/static/lineage/{name}.graphql") as response:
        return await response.text()


def family(
    neo4j_uri: str | None = OTHER_NEO4J_URI,
    neo4j_password: str | None = NEO4J_PASSWORD,
    seed: int = SEED,
    large: int = LARGE_OPTION,
    clients: int = CLIENTS,
    rounds: int = ROUNDS,
    loads: int = LOADS,
    output: Path | None = OTHER_OUTPUT,
) -> None:
    """A 2,000-thread and a 10-thread family built through the API: the lineage page's
    queries per returned thread on both, and the page's drawing time in Chromium."""
    from bench.runner import machine, versions

    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    with service.neo4j_or_throwaway("family", neo4j_uri, neo4j_password) as (home, uri, auth):
        if neo4j_uri:
            _wipe(uri, auth)
        api = service.start_api(home / "api", uri, auth, "neo4j", [WORKSPACE])
        try:
            built, timings, render = asyncio.run(
                _run(api, (seed, large, clients, rounds, loads), stderr_log)
            )
        finally:
            api.stop()
        facts = {**machine(), **_versions(uri, auth, versions)}
    results = FamilyResults(
        built,
        timings,
        render,
        load_before,
        os.getloadavg(),
        facts,
        "python -m bench family"
        + (f" --large {large}" if large != LARGE else "")
        + (f" --output {output}" if output else ""),
        started,
    )
    text = report(results)
    typer.echo(text)
    if output is not None:
        output.write_text(text)
        typer.echo(f"wrote {output}", err=True)


def _wipe(uri: str, auth: tuple[str, str] | None) -> None:
    from neo4j import GraphDatabase

    from bench.runner import wipe

    with GraphDatabase.driver(uri, auth=auth) as driver:
        wipe(driver, "neo4j", WORKSPACE)


def _versions(
    uri: str, auth: tuple[str, str] | None, versions: Callable[[Any, str], dict[str, str]]
) -> dict[str, str]:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(uri, auth=auth) as driver:
        return versions(driver, "neo4j")
