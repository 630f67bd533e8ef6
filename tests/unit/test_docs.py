"""The README and docs/ hold together: the README is short, its quickstart fits on one
screen and names no figure that goes stale; every relative link of the README and of
docs/*.md reaches a file, and its `#anchor` a heading there; every docs page with GraphQL
examples is one tests/integration/test_readme.py runs."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.support.examples import DOCS, PAGES, README, ROOT, blocks, section

MAX_README_LINES = 350
MAX_QUICKSTART_LINES = 80
# Figures that go stale: test counts, durations, sizes, line counts (docs/TESTING.md keeps them).
STALE = re.compile(
    r"\b\d[\d,.]*\s*(?:tests?|passed|failed|lines|ms|s|sec|seconds|min|minutes|MB|GB)\b"
)
# [text](target) and ![alt](target), not inside code.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCED = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
INLINE_CODE = re.compile(r"`[^`\n]*`")
PAGES_WITH_LINKS = [README, *sorted(DOCS.glob("*.md"))]


def test_the_readme_is_short_and_its_quickstart_fits_on_a_screen() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= MAX_README_LINES
    quickstart = section(README, "## Quickstart")
    assert len(quickstart.rstrip("\n").splitlines()) <= MAX_QUICKSTART_LINES


def test_the_readme_names_no_figure_that_goes_stale_and_no_fixed_browser_port() -> None:
    text = README.read_text()
    assert not STALE.findall(text), "figures that go stale belong in docs/TESTING.md"
    # The managed Neo4j's Browser moves off 7474 when that port is taken: the front door
    # and the "ready at" lines say where it is.
    assert "7474" not in text


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = heading.strip().lower()
    kept = [ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN"]
    return "".join(kept).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCED.sub("", page.read_text())
    found: set[str] = set()
    for heading in re.findall(r"^#+ (.+)$", text, re.MULTILINE):
        base = slug(heading)
        name, n = base, 0
        while name in found:
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    return found


def relative_links(page: Path) -> list[str]:
    text = INLINE_CODE.sub("", FENCED.sub("", page.read_text()))
    return [target for target in LINK.findall(text) if not re.match(r"^[a-z]+:", target)]


@pytest.mark.parametrize("page", PAGES_WITH_LINKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    for target in relative_links(page):
        path, _, anchor = unquote(target).partition("#")
        reached = (page.parent / path).resolve() if path else page
        assert reached.exists(), f"{page.name}: {target} reaches no file"
        if anchor and reached.suffix == ".md":
            assert anchor in anchors(reached), f"{page.name}: {target}: no such heading"


def test_the_checks_see_links_and_anchors() -> None:
    assert slug("Retries and `commandId`") == "retries-and-commandid"
    assert slug("Rules we chose where SEMANTICS.md is silent") == (
        "rules-we-chose-where-semanticsmd-is-silent"
    )
    assert "docs/HANDOFFS.md#context-that-fits" in relative_links(README)


def test_every_docs_page_with_graphql_examples_is_run() -> None:
    with_graphql = {
        page.name
        for page in DOCS.glob("*.md")
        if any(block.language == "graphql" for block in blocks(page))
    }
    assert with_graphql == set(PAGES)
