"""The web assets shipped in api/static: pinned, licensed, local, and affordable to query."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from graphql import OperationDefinitionNode, parse, validate

from api.graphql.cost import QueryCost
from api.graphql.schema import build_schema
from api.http.pages import STATIC
from api.settings import Settings

VENDOR = STATIC / "vendor"
MANIFEST: dict[str, Any] = json.loads((VENDOR / "manifest.json").read_text())
OWN = [p for p in STATIC.rglob("*") if p.is_file() and VENDOR not in p.parents]
MIT = "Permission is hereby granted, free of charge"


def test_every_vendored_file_is_pinned_in_the_manifest_and_nothing_else_is_there() -> None:
    listed = {dest for package in MANIFEST["packages"] for dest in package["files"].values()}
    # The page's Chinese font, cut by scripts/subset-cjk-font (tests/unit/test_page_font.py).
    for cut in MANIFEST["subsets"]:
        listed |= set(cut["fonts"].values()) | set(cut["files"].values())
    present = {p.relative_to(VENDOR).as_posix() for p in VENDOR.rglob("*") if p.is_file()} - {
        "manifest.json"
    }
    assert present == listed
    for package in MANIFEST["packages"] + MANIFEST["subsets"]:
        assert re.fullmatch(r"\d+\.\d+\.\d+", package["version"]), package
        assert package["integrity"].startswith("sha512-")


def test_every_package_keeps_its_mit_licence_beside_its_file() -> None:
    for package in MANIFEST["packages"]:
        assert package["license"] == "MIT"
        licences = [dest for dest in package["files"].values() if "LICENSE" in dest]
        assert len(licences) == 1, package["name"]
        assert MIT in (VENDOR / licences[0]).read_text()
        bundled = package.get("bundledIn")
        if bundled:  # kept beside the file that contains it
            assert Path(licences[0]).parent.name == bundled


def test_the_pages_own_files_name_no_other_host() -> None:
    assert OWN
    for path in OWN:
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", path.read_text()), path


def lineage_queries() -> list[Path]:
    return sorted((STATIC / "lineage").glob("*.graphql"))


@pytest.mark.parametrize("path", lineage_queries(), ids=lambda p: p.stem)
def test_the_lineage_page_queries_are_valid_and_well_under_the_cost_limit(path: Path) -> None:
    settings = Settings()
    schema = build_schema(settings)._schema
    document = parse(path.read_text())
    assert validate(schema, document) == []
    [operation] = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    cost = QueryCost(schema, {"depth": 100}, settings.max_page_size).of(operation, [])
    assert cost <= settings.max_query_cost // 4, (path.name, cost)
