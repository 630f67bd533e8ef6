"""Does the bulk data look like what the service writes? Compared on the real graph.

The reference is a workspace the running service wrote itself (the demo family and a
few cycles of the harness's own client), read back from Neo4j; the bulk workspace is
what `bench.model` wrote. The rules:

1. every label the generator writes, the service writes too;
2. every property the generator puts on a label, the service puts there too, with the
   same value type;
3. in each (label, status, type) group both have, a property the service puts on *every* node
   the generator puts on every node too (this is what catches a new property of the
   write path, e.g. a per-run digest, that `bench/model.py` does not write yet);
4. every relationship pattern the generator draws, the service draws, with the same
   relationship properties;
5. and the other way round: every property and relationship pattern the service wrote in
   the reference, the generator writes somewhere too (this catches a new property or
   relationship of the write path even when not every node has it).

The reference walks the states the generator produces, so rule 5 holds with nothing left
over. What the service writes only in states the generator deliberately does not simulate
goes into `SERVICE_ONLY` below and is then listed as a note, not a problem.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from neo4j import Driver

from bench import queries

Group = tuple[str, str, str]  # (label, status or "", type or "")

# Properties ("Label.key") and relationship patterns ("(Start)-[:TYPE]->(End)") the
# service writes in states the generator does not simulate. Empty today: the reference
# family writes nothing the generator does not.
SERVICE_ONLY: frozenset[str] = frozenset()


@dataclass
class Shapes:
    totals: dict[Group, int] = field(default_factory=dict)
    carried: dict[Group, dict[str, int]] = field(default_factory=dict)
    types: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # label -> key -> types
    edges: dict[tuple[str, str, str], set[tuple[str, ...]]] = field(default_factory=dict)


@dataclass
class Report:
    problems: list[str]
    notes: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def shapes(driver: Driver, database: str, workspace: str) -> Shapes:
    found = Shapes()
    carried: dict[Group, dict[str, int]] = defaultdict(dict)
    types: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    edges: dict[tuple[str, str, str], set[tuple[str, ...]]] = defaultdict(set)
    records, _, _ = driver.execute_query(
        queries.load("check/node_groups"), workspace=workspace, database_=database
    )
    found.totals = {(r["label"], r["status"], r["type"]): r["total"] for r in records}
    records, _, _ = driver.execute_query(
        queries.load("check/node_shapes"), workspace=workspace, database_=database
    )
    for r in records:
        group = (r["label"], r["status"], r["type"])
        carried[group][r["key"]] = carried[group].get(r["key"], 0) + r["carried"]
        types[r["label"]][r["key"]].add(_type(r["valueType"]))
    records, _, _ = driver.execute_query(
        queries.load("check/edge_shapes"), workspace=workspace, database_=database
    )
    for r in records:
        edges[(r["start"], r["type"], r["end"])].add(tuple(sorted(r["keys"])))
    found.carried = dict(carried)
    found.types = {label: dict(keys) for label, keys in types.items()}
    found.edges = dict(edges)
    return found


def compare(bulk: Shapes, service: Shapes) -> Report:
    problems: list[str] = []
    notes: list[str] = []
    fix = "update bench/model.py"
    for label in sorted(bulk.types):
        if label not in service.types:
            problems.append(f"{label}: the generator writes this label, the service does not")
            continue
        for key in sorted(bulk.types[label]):
            theirs = service.types[label].get(key)
            if theirs is None:
                problems.append(f"{label}.{key}: written by the generator, never by the service")
            elif not _compatible(bulk.types[label][key], theirs):
                problems.append(
                    f"{label}.{key}: the generator writes {sorted(bulk.types[label][key])}, "
                    f"the service {sorted(theirs)} ({fix})"
                )
        for key in sorted(set(service.types[label]) - set(bulk.types[label])):
            found = f"{label}.{key}"
            if found in SERVICE_ONLY:
                notes.append(f"{found}: only the service writes it (a state not generated)")
            else:
                problems.append(f"{found}: the service writes it, the generator never ({fix})")
    for label in sorted(set(service.types) - set(bulk.types)):
        problems.append(f"{label}: the service writes this label, the generator never ({fix})")
    for group in sorted(set(bulk.totals) & set(service.totals)):
        required = {
            key
            for key, count in service.carried.get(group, {}).items()
            if count == service.totals[group]
        }
        mine = bulk.carried.get(group, {})
        for key in sorted(required):
            if mine.get(key, 0) != bulk.totals[group]:
                label, status, kind = group
                where = label + "".join(f"[{part}]" for part in (status, kind) if part)
                problems.append(
                    f"{where}.{key}: the service writes it on every such node, the generator on "
                    f"{mine.get(key, 0)} of {bulk.totals[group]} ({fix})"
                )
    for pattern in sorted(bulk.edges):
        start, kind, end = pattern
        text = f"({start})-[:{kind}]->({end})"
        if pattern not in service.edges:
            problems.append(f"{text}: drawn by the generator, never by the service")
        elif bulk.edges[pattern] != service.edges[pattern]:
            problems.append(
                f"{text}: properties {sorted(bulk.edges[pattern])} here, "
                f"{sorted(service.edges[pattern])} in the service"
            )
    for start, kind, end in sorted(set(service.edges) - set(bulk.edges)):
        found = f"({start})-[:{kind}]->({end})"
        if found in SERVICE_ONLY:
            notes.append(f"{found}: only the service draws it (a state not generated)")
        else:
            problems.append(
                f"{found}: the service draws it, the generator never ({fix} and bench/cypher/bulk/)"
            )
    return Report(problems, notes)


def check(driver: Driver, database: str, bulk_workspace: str, service_workspace: str) -> Report:
    return compare(
        shapes(driver, database, bulk_workspace), shapes(driver, database, service_workspace)
    )


def _type(name: str) -> str:
    return name.removesuffix(" NOT NULL")


def _compatible(mine: set[str], theirs: set[str]) -> bool:
    """An empty list (LIST<NOTHING>) fits any list type."""
    lists = {t for t in theirs if t.startswith("LIST")}
    return all(t in theirs or (t == "LIST<NOTHING>" and lists) for t in mine)
