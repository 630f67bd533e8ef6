"""Full-text search: the Lucene queries a search runs and the snippet a hit shows (docs/MODEL.md,
"Search").

A query is its words (letters, digits and `_`, in any case); anything else separates them,
so no character of a query is Lucene syntax. A hit matches at least one word, in a thread's
title, a run's input or an item's text; more words and rarer ones rank higher (Lucene's
BM25).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph.errors import invalid
from graph.models import RunItemKind
from graph.search import FieldQueries

WORD = re.compile(r"\w+")
MOST_WORDS = 32  # Lucene's clauses stay few: three fields a word
SNIPPET_CHARS = 160
# Lucene is asked for this many nodes a hit: room for the hits the statement drops.
CANDIDATES_PER_HIT = 4
CANDIDATES_MORE = 20
WIDER = 10  # the second read, for a page the first left short


def words(query: str) -> list[str]:
    """The query's words, lower-cased, each once, in order; INVALID_INPUT if it has none
    or more than MOST_WORDS."""
    found = list(dict.fromkeys(word.lower() for word in WORD.findall(query)))
    if not found:
        raise invalid("search needs a query with at least one word (letters or digits).")
    if len(found) > MOST_WORDS:
        raise invalid(f"search takes at most {MOST_WORDS} words, got {len(found)}.")
    return found


def lucene(
    workspace: str, searched: Sequence[str], kinds: Sequence[RunItemKind] | None
) -> FieldQueries | None:
    """The index queries: each requires the workspace (a phrase, analyzed as the indexed
    name was; boost 0, so it does not rank) and one of the words in its field: titles,
    inputs, item texts; with `kinds`, only inputs (when USER_GOAL is among them) and items
    of those kinds. None when no hit can match (`kinds` empty): the search answers nothing
    without asking the index."""
    if kinds is not None and not kinds:
        return None
    terms = " ".join(searched)
    where = f'+workspace:"{workspace}"^0'
    if kinds is None:
        return FieldQueries(
            titles=f"{where} +title:({terms})",
            inputs=f"{where} +input:({terms})",
            texts=f"{where} +text:({terms})",
        )
    named = " ".join(kind.value.lower() for kind in kinds)
    return FieldQueries(
        inputs=f"{where} +input:({terms})" if RunItemKind.USER_GOAL in kinds else None,
        texts=f"{where} +kind:({named})^0 +text:({terms})",
    )


def candidates(first: int) -> int:
    return first * CANDIDATES_PER_HIT + CANDIDATES_MORE


def candidates_again(first: int, found: int) -> int | None:
    """How many nodes to ask Lucene for a second time when the first answer held only
    `found` hits of the `first` asked for (the statement dropped more than it kept:
    hits of rolled-back runs, of another workspace); None when the page is full. One
    more read at most: a page is short after it only when more than this many of the
    best matches were dropped."""
    if found >= first:
        return None
    return candidates(first) * WIDER


def snippet(text: str, searched: Sequence[str], chars: int = SNIPPET_CHARS) -> str:
    """Up to `chars` characters of `text` (whitespace runs as one space) around its first
    searched word, `…` where it was cut."""
    flat = " ".join(text.split())
    if len(flat) <= chars:
        return flat
    pattern = "|".join(re.escape(word) for word in searched)
    found = re.search(rf"(?<!\w)(?:{pattern})(?!\w)", flat, re.IGNORECASE) if pattern else None
    at = found.start() if found else 0
    begin = max(0, min(at - chars // 3, len(flat) - chars))
    end = begin + chars
    head = "…" if begin > 0 else ""
    tail = "…" if end < len(flat) else ""
    return head + flat[begin:end].strip() + tail
