"""The conformance check names what the generator must learn when the model grows."""

from __future__ import annotations

from bench.conformance import Shapes, compare

COMPLETED = ("Run", "COMPLETED", "")


def shapes(run_keys: dict[str, int], edges: list[tuple[str, str, str]]) -> Shapes:
    return Shapes(
        totals={COMPLETED: 10},
        carried={COMPLETED: run_keys},
        types={"Run": {key: {"STRING"} for key in run_keys}},
        edges={edge: {()} for edge in edges},
    )


EXECUTED_ON = ("Run", "EXECUTED_ON", "ProviderThread")


def test_identical_shapes_conform() -> None:
    same = shapes({"id": 10, "status": 10}, [EXECUTED_ON])
    assert compare(same, same).problems == []


def test_a_property_the_write_path_adds_is_named() -> None:
    bulk = shapes({"id": 10, "status": 10}, [EXECUTED_ON])
    service = shapes({"id": 10, "status": 10, "digest": 10}, [EXECUTED_ON])
    problems = compare(bulk, service).problems
    assert any("Run[COMPLETED].digest" in p and "bench/model.py" in p for p in problems)


def test_a_property_on_some_nodes_only_is_named_too() -> None:
    bulk = shapes({"id": 10, "status": 10}, [EXECUTED_ON])
    service = shapes({"id": 10, "status": 10, "coverageRanges": 3}, [EXECUTED_ON])
    assert any("Run.coverageRanges" in p for p in compare(bulk, service).problems)


def test_a_relationship_the_write_path_adds_is_named() -> None:
    bulk = shapes({"id": 10}, [EXECUTED_ON])
    service = shapes({"id": 10}, [EXECUTED_ON, ("Run", "FOLLOWS", "Run")])
    assert any("(Run)-[:FOLLOWS]->(Run)" in p for p in compare(bulk, service).problems)


def test_what_the_generator_invents_is_named() -> None:
    bulk = shapes({"id": 10, "colour": 10}, [EXECUTED_ON])
    service = shapes({"id": 10}, [EXECUTED_ON])
    assert any("Run.colour" in p for p in compare(bulk, service).problems)
