"""bench/RESULTS.md: the machine, the versions, the figures, and the issue's targets."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from bench.fidelity import table
from bench.results import Pair, Rate, Results, ScaleStep, Stat, Window

# The columns of a GraphQL figure beside its raw baseline (`_pair`), and its round trips.
PAIR_COLUMNS = (
    "n",
    "p50",
    "p95",
    "p99",
    "raw p50",
    "raw p95",
    "raw p99",
    "/ raw (p50)",
    "round trips",
)

# A row of `_pair_table`: its leading cells, the measured pair, its round trips.
_PairRow = tuple[Sequence[object], Pair, object]


def render(results: Results) -> str:
    config = results.config
    lines = [
        "# Threadline benchmark results",
        "",
        f"Scale **{config['scales'][-1][0]}**"
        f"{' (quick)' if config.get('quick') else ''}, started {results.started}, "
        f"took {_duration(results.duration_seconds)}. Produced by `python -m bench` "
        "(see bench/README.md); every GraphQL figure went over real HTTP to a `threadline "
        "serve` process and stands beside its raw-driver baseline measured in the same run.",
        "",
    ]
    if results.notes:
        lines += [f"> {note}" for note in results.notes] + [""]
    lines += ["## Machine and versions", "", "| | |", "| --- | --- |"]
    lines += [_row(key, value) for key, value in results.machine.items()]
    lines += [_row(key, value) for key, value in results.versions.items()]
    lines += ["", "## Targets", ""]
    lines += _targets(results)
    lines += ["", "## Data", ""]
    lines += _data(results.steps)
    lines += ["", "## startRun → attachNativeThread → completeRun", ""]
    lines += _windows(results.windows)
    lines += ["", "## thread { runs providerThreads { coverage } }", ""]
    lines += _reads(results)
    lines += ["", "## lineage and coverage as the graph grows (same answer at every scale)", ""]
    lines += _scales(results.steps)
    lines += ["", "## Throughput (start → attach → complete, each client on its own thread)", ""]
    lines += _rates(results)
    lines += ["", "## Summary build and API memory", ""]
    lines += _other(results)
    lines += ["", "## Context: delta against full handoffs, quality at budgets", ""]
    lines += _context(results)
    lines += ["", "## Fidelity: Threadline beside T3 Code's rule and the naive rule", ""]
    lines += _fidelity(results)
    lines += ["", "## Checks", ""]
    lines += _checks(results)
    return "\n".join(lines) + "\n"


# ---- targets ------------------------------------------------------------------------------


def _targets(results: Results) -> list[str]:
    rows: list[tuple[str, str, str]] = []
    by_ordinal = {w.ordinal: w for w in results.windows}
    if by_ordinal:
        first, last = min(by_ordinal), max(by_ordinal)
        for op in ("start", "complete"):
            low, high = _op(by_ordinal[first], op), _op(by_ordinal[last], op)
            rows.append(
                (
                    f"`{_name(op)}` median at run {last} / at run {first}",
                    f"{high.graphql.p50 / low.graphql.p50:.2f}x "
                    f"({high.graphql.p50:.1f} / {low.graphql.p50:.1f} ms)",
                    _verdict(high.graphql.p50 / low.graphql.p50 <= 1.3, "≤ 1.3x"),
                )
            )
        for ordinal in sorted(by_ordinal):
            pair = by_ordinal[ordinal].start
            rows.append(
                (
                    f"`startRun` HTTP / raw driver, run {ordinal} (medians)",
                    f"{pair.ratio:.1f}x ({pair.graphql.p50:.1f} / {pair.raw.p50:.1f} ms)",
                    _verdict(pair.ratio <= 3, "≤ 3x"),
                )
            )
    if results.reads:
        largest = max(results.reads, key=lambda probe: probe.runs)
        smallest = min(results.reads, key=lambda probe: probe.runs)
        rows.append(
            (
                f"`thread` with {largest.runs} runs and coverage / raw Cypher (medians)",
                f"{largest.read.ratio:.1f}x ({largest.read.graphql.p50:.1f} / "
                f"{largest.read.raw.p50:.1f} ms)",
                _verdict(largest.read.ratio <= 5, "≤ 5x"),
            )
        )
        rows.append(
            (
                f"round trips of `thread`, {smallest.runs} vs {largest.runs} runs",
                f"{smallest.round_trips} vs {largest.round_trips}",
                _verdict(smallest.round_trips == largest.round_trips, "equal"),
            )
        )
    measured = [s for s in results.steps if s.lineage and s.coverage]
    if len(measured) > 1:
        low_step, high_step = measured[0], measured[-1]
        pairs = (
            ("lineage", low_step.lineage, high_step.lineage),
            ("coverage (`thread` read)", low_step.coverage, high_step.coverage),
            ("search", low_step.search, high_step.search),
            ("newest page of threads", low_step.threads_page, high_step.threads_page),
        )
        for what, small, large in pairs:
            if small is None or large is None:
                continue
            ratio = large.graphql.p50 / small.graphql.p50
            rows.append(
                (
                    f"{what} median at {high_step.label} / at {low_step.label} threads",
                    f"{ratio:.2f}x ({large.graphql.p50:.1f} / {small.graphql.p50:.1f} ms)",
                    _verdict(ratio <= 1.5, "≤ 1.5x"),
                )
            )
    for rate in results.rates:
        if rate.concurrency in (8, 32):
            target = rate.concurrency == 8 and rate.api_processes == 1
            rows.append(
                (
                    f"throughput at concurrency {rate.concurrency}{_over(rate)} / raw driver",
                    f"{rate.ratio:.2f} ({rate.per_second:.1f} / {rate.raw_per_second:.1f} "
                    "cycles/s)",
                    _verdict(rate.ratio >= 1 / 3, "≥ 1/3") if target else "report",
                )
            )
    if results.summary is not None:
        rows.append(
            (
                f"summary of a {results.config['summary_runs']}-run thread (median)",
                f"{results.summary.p50:.1f} ms",
                _verdict(results.summary.p50 < 50, "< 50 ms"),
            )
        )
    if results.api_peak_rss_mb is not None:
        rows.append(
            (
                f"API peak RSS at {results.config['scales'][-1][0]}",
                f"{results.api_peak_rss_mb:.0f} MB",
                _verdict(results.api_peak_rss_mb < 300, "< 300 MB"),
            )
        )
    rows.append(("contract, semantics and test suite unchanged", "—", "the test suite says"))
    return _header(("target", "measured", "verdict")) + [_row(*row) for row in rows]


def _verdict(met: bool, target: str) -> str:
    return f"meets {target}" if met else f"**misses** {target}"


def _op(window: Window, op: str) -> Pair:
    found: Pair = getattr(window, op)
    return found


def _name(op: str) -> str:
    return {"start": "startRun", "attach": "attachNativeThread", "complete": "completeRun"}.get(
        op, "cycle"
    )


# ---- tables -------------------------------------------------------------------------------


def _data(steps: Iterable[ScaleStep]) -> list[str]:
    rows = [
        "Generated threads and runs so far; nodes and relationships in the whole database; "
        "each step's generation and bulk writes (transactions of up to 5,000 rows), its "
        "write rate in nodes + relationships per second and the harness's peak memory.",
        "",
        *_header(
            ("step",),
            (
                "threads",
                "runs",
                "nodes",
                "relationships",
                "store on disk",
                "step took",
                "written/s",
                "transactions",
                "harness peak RSS",
            ),
        ),
    ]
    for step in steps:
        rate = step.written / step.bulk_seconds if step.bulk_seconds else 0
        store = "-" if step.store_mb is None else f"{step.store_mb:,.0f} MB"
        rows.append(
            _row(
                step.label,
                *(f"{n:,}" for n in (step.threads, step.runs, step.nodes, step.relationships)),
                store,
                _duration(step.bulk_seconds),
                f"{rate:,.0f}",
                f"{step.bulk_transactions:,}",
                f"{step.generator_peak_rss_mb:.0f} MB",
            )
        )
    return rows


def _windows(windows: list[Window]) -> list[str]:
    rows: list[_PairRow] = []
    for window in windows:
        for op in ("start", "attach", "complete", "cycle"):
            runs = f"{window.first}-{window.last}"
            rows.append(((_name(op), runs), _op(window, op), window.round_trips.get(op, "")))
    return _pair_table(
        "Milliseconds; `n` samples = measured threads x window runs. Raw = one statement in "
        "one write transaction doing the same writes (bench/cypher/baseline/).",
        ("operation", "runs"),
        rows,
    )


def _reads(results: Results) -> list[str]:
    rows = _header((), ("runs", "provider threads", *PAIR_COLUMNS))
    for probe in results.reads:
        rows.append(_row(probe.runs, probe.provider_threads, *_pair(probe.read), probe.round_trips))
    return rows


def _scales(steps: list[ScaleStep]) -> list[str]:
    rows: list[_PairRow] = []
    for step in steps:
        for what, pair, trips, answer in (
            ("lineage", step.lineage, step.lineage_round_trips, f"{step.lineage_nodes} threads"),
            ("coverage", step.coverage, step.coverage_round_trips, f"{step.coverage_runs} runs"),
            ("search", step.search, step.search_round_trips, f"{step.search_hits} hits"),
            ("threads", step.threads_page, step.threads_page_round_trips, "20 threads"),
        ):
            if pair is not None:
                rows.append(((step.label, what, answer), pair, trips))
    return _pair_table(
        "`lineage(depth: 20)` of the probe family (a fork chain 20 deep with a subagent on "
        "every level) and the `thread` read of its 50-run root, written with the bulk data; "
        '`search(query: "refactor payments", first: 20)` over every generated thread '
        "(two words most of them hold); `threads(first: 20, newestFirst: true)`, the list a "
        "UI opens on.",
        ("step", "read", "answer"),
        rows,
    )


def _pair_table(note: str, left: Sequence[str], rows: Iterable[_PairRow]) -> list[str]:
    """A note, then a table of measured pairs: each row's `left` cells, its pair
    (PAIR_COLUMNS) and its round trips."""
    return [
        note,
        "",
        *_header(left, PAIR_COLUMNS),
        *(_row(*cells, *_pair(pair), trips) for cells, pair, trips in rows),
    ]


def _over(rate: Rate) -> str:
    return f" over {rate.api_processes} API processes" if rate.api_processes > 1 else ""


def _rates(results: Results) -> list[str]:
    rows = _header(
        (),
        (
            "clients",
            "API processes",
            "cycles/s",
            "cycles",
            "errors",
            "raw cycles/s",
            "raw cycles",
            "/ raw",
            "CPU ms per cycle: API + Neo4j + harness",
            "raw: Neo4j + harness",
        ),
    )
    for rate in results.rates:
        raw_errors = f" ({rate.raw_errors} errors)" if rate.raw_errors else ""
        rows.append(
            _row(
                rate.concurrency,
                rate.api_processes,
                f"{rate.per_second:.1f}",
                rate.cycles,
                rate.errors,
                f"{rate.raw_per_second:.1f}",
                f"{rate.raw_cycles}{raw_errors}",
                f"{rate.ratio:.2f}",
                _cpu(rate.cpu_ms, ("api", "neo4j", "harness")),
                _cpu(rate.raw_cpu_ms, ("neo4j", "harness")),
            )
        )
    rows += [
        "",
        "CPU per cycle is each process's user + system time over the run divided by its "
        "cycles (bench/cpu.py); the harness is this process, the clients' side. Where the "
        "cycles/s stop growing, the processes' CPU per cycle is what they are spending.",
    ]
    return rows


def _cpu(cpu_ms: dict[str, float], names: tuple[str, ...]) -> str:
    return " + ".join(f"{cpu_ms[name]:.1f}" if name in cpu_ms else "—" for name in names)


def _context(results: Results) -> list[str]:
    runs = results.config["summary_runs"]
    rows = [
        f"In-process over the same {runs} generated runs as the summary build (providers "
        "switching every 10 runs), with the product's summarizer, selection and quality "
        "rule (bench/context.py). Tokens as the service counts them (cl100k_base).",
        "",
    ]
    saving = results.delta_saving
    if saving is not None:
        rows += [
            *_header(("at each switch back to a provider",), ("switches", "p50", "p95", "mean")),
            _tokens_row(
                "delta handoff (what the provider missed), tokens",
                saving.switches,
                saving.delta_tokens,
            ),
            _tokens_row(
                "full handoff of every run so far, tokens (cap 32,000)",
                saving.switches,
                saving.full_tokens,
            ),
            _tokens_row("saving of the delta, %", saving.switches, saving.saving),
            "",
        ]
    if results.budget_quality:
        rows += _header(
            (),
            (
                "full handoff of runs",
                "budget",
                "tokens",
                "items not shown whole",
                "quality score",
                "fidelity",
            ),
        )
        rows += [
            _row(
                f"1-{q.runs}",
                f"{q.budget:,}",
                f"{q.tokens:,}",
                f"{q.omitted:,}",
                f"{q.score:.3f}",
                f"{q.fidelity:.3f}",
            )
            for q in results.budget_quality
        ]
        rows += [
            "",
            "The generated runs draw decisions from a short list and files from a few areas, "
            "so one kept line carries many must-keep items: a score of 1.0 can stand beside "
            "items left out. Real threads repeat less.",
        ]
    return rows


def _fidelity(results: Results) -> list[str]:
    """The fidelity benchmark (bench/handoffs.py): every rule on the same material."""
    return [
        "In-process, on the root threads of two generated families and on generated Claude "
        "Code and Codex session files imported through the product's importers "
        "(bench/handoffs.py). Each rule writes a handoff of every active run within the "
        "budget: Threadline's summarizer, T3 Code's `selectHistory` rule re-implemented from "
        "its published source (bench/baselines/t3code.py), and the naive rule keeping the "
        "last messages that fit. Fidelity is the share, by tokens, of the material shown "
        "whole (found in each text from outside); the score is the product's quality rule "
        "on each text. Tokens by cl100k_base for every rule.",
        "",
        *table(results.fidelity_rows).splitlines(),
    ]


def _tokens_row(name: str, n: int, stat: Stat) -> str:
    return _row(name, n, f"{stat.p50:,.0f}", f"{stat.p95:,.0f}", f"{stat.mean:,.0f}")


def _other(results: Results) -> list[str]:
    rows = _header(("figure", "value"))
    if results.summary is not None:
        summary = results.summary
        rows.append(
            _row(
                f"`summarize` of {results.config['summary_runs']} runs "
                f"({results.summary_items:,} items), n={summary.n}",
                f"p50 {summary.p50:.1f} ms, p95 {summary.p95:.1f} ms, p99 {summary.p99:.1f} ms",
            )
        )
    if results.api_peak_rss_mb is not None:
        rows.append(
            _row(
                "API process peak RSS (VmHWM) / RSS at the end",
                f"{results.api_peak_rss_mb:.0f} MB / {results.api_rss_mb or 0:.0f} MB",
            )
        )
    rows.append(
        _row(
            "time in the measured threads' cycles, service / raw",
            f"{_duration(results.measured_cycle_seconds)} / {_duration(results.raw_cycle_seconds)}",
        )
    )
    return rows


def _checks(results: Results) -> list[str]:
    lines = []
    if not results.conformance_checked:
        lines.append("- Conformance of the bulk data: not checked in this run.")
    elif results.conformance:
        lines.append("- **The bulk data does not look like what the service writes:**")
        lines += [f"  - {problem}" for problem in results.conformance]
    else:
        lines.append(
            "- The bulk data has the labels, properties (and their types) and relationships "
            "the service writes (checked against a family the service wrote in this run)."
        )
    if results.integrity:
        lines.append("- **Integrity checks that failed:**")
        lines += [f"  - {problem}" for problem in results.integrity]
    else:
        lines.append(
            f"- {results.integrity_checked} integrity checks passed: every GraphQL answer "
            "measured equals the raw query's rows, and generated data reads back as generated."
        )
    if results.conformance_notes:
        lines.append("- Written only by the service (states the generator does not simulate):")
        lines += [f"  - {note}" for note in results.conformance_notes]
    return lines


def _header(left: Sequence[str], right: Sequence[str] = ()) -> list[str]:
    """A table's column names and its alignment row: `left` aligned left, then `right`
    (numbers) aligned right."""
    return [_row(*left, *right), _row(*["---"] * len(left), *["---:"] * len(right))]


def _row(*cells: object) -> str:
    """One row of a Markdown table."""
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _pair(pair: Pair) -> tuple[object, ...]:
    """The cells of a measured pair: n, the percentiles of each side, their ratio."""
    return pair.graphql.n, _ms(pair.graphql), _ms(pair.raw), f"{pair.ratio:.1f}x"


def _ms(stat: Stat) -> str:
    return f"{stat.p50:.1f} | {stat.p95:.1f} | {stat.p99:.1f}"


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "—"
    if seconds < 90:
        return f"{seconds:.1f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
