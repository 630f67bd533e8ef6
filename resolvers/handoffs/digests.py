"""What a handoff reads of a run: its digest, written once when the run ends (docs/MODEL.md,
"Faithful handoffs").

A digest keeps each item's text whole (control characters removed, white space folded
within each line: `whole`) with the tokens of its two forms: whole, and shortened (the
cut line that says where the whole text is: `cut`), so a start never reads a run's items
again nor counts their tokens. Items no handoff ever shows (REASONING, PROTOCOL) are left
out; every other item keeps its index in the run, which `Thread.items` answers too.
"""

from __future__ import annotations

from typing import Any

from graph.models import DigestItem, RunDigest, RunItem, RunItemKind, RunNode
from resolvers.handoffs import tokenizer
from resolvers.handoffs.clean import clean

LINE_LIMIT = 400  # a shortened form is one line of at most this many characters
# Items no summary reads (SEMANTICS "Never included").
NEVER_READ = frozenset({RunItemKind.REASONING, RunItemKind.PROTOCOL})
# The only attributes a section reads.
READ_ATTRIBUTES = frozenset(
    {"additions", "deletions", "changeKind", "outcome", "status", "result", "exitCode"}
    | {"done", "resolved"}
)


def whole(text: str) -> str:
    """`text` as a handoff shows it whole: control characters removed, each line's runs of
    white space folded to one space, blank lines at either end dropped."""
    lines = [" ".join(line.split()) for line in clean(text).split("\n")]
    return "\n".join(lines).strip("\n")


def flat(text: str) -> str:
    return " ".join(clean(text).split())


def cut(text: str, ordinal: int, index: int) -> str | None:
    """The shortened form of an item (`index` -1: a run's input): one line that says where
    the whole text is. None when the item is short enough to have none."""
    single = flat(text)
    if len(single) <= LINE_LIMIT:
        return None
    what = "request" if index < 0 else "item"
    where = f" [cut; the whole {what}: run {ordinal}, index {index}, in Thread.items]"
    return shorten(single, LINE_LIMIT - len(where)) + where


def shorten(text: str, limit: int) -> str:
    single = " ".join(text.split())
    return single if len(single) <= limit else single[: limit - 1].rstrip() + "…"


def file_line(path: str, change_kind: str, additions: int, deletions: int) -> str:
    """A changed file as every handoff names it: never its diff."""
    return f"{path} ({change_kind}, +{additions}/-{deletions})"


def digest_of(run: RunNode) -> RunDigest:
    """What summaries read of `run`. The failure reason stays as given (cleaned): a blank
    one reads differently from a missing one."""
    shown_input = whole(run.input)
    shortened = cut(run.input, run.ordinal, -1)
    return RunDigest(
        ordinal=run.ordinal,
        status=run.status,
        input=shown_input,
        inputTokens=tokenizer.count(shown_input),
        inputCutTokens=tokenizer.count(shortened) if shortened else 0,
        failureReason=clean(run.failureReason) if run.failureReason is not None else None,
        providerThreadId=run.providerThreadId,
        items=[
            _item_digest(item, n, run.ordinal)
            for n, item in enumerate(run.items)
            if item.kind not in NEVER_READ
        ],
        checkpointRef=run.checkpoint.ref if run.checkpoint else None,
        diffSummary=list(run.checkpoint.diffSummary) if run.checkpoint else None,
    )


def up_to_item(digest: RunDigest, index: int) -> RunDigest:
    """What a fork at item `index` of the run inherits of it (docs/MODEL.md "Steering the
    context"): its input and its items up to that index (-1: none). Its checkpoint was
    taken when the whole run ended, so it goes too; the selection rules read the cut
    digest as they read any."""
    return digest.model_copy(
        update={
            "items": [item for item in digest.items if item.index <= index],
            "checkpointRef": None,
            "diffSummary": None,
        }
    )


def _item_digest(item: RunItem, index: int, ordinal: int) -> DigestItem:
    attributes = {k: v for k, v in (item.attributes or {}).items() if k in READ_ATTRIBUTES}
    if item.kind is RunItemKind.FILE_CHANGE:
        # Its diff is never shown: its whole form is its path and stats line.
        shown, counted, shortened = "", file_form(item.path, attributes), None
    else:
        shown = whole(item.text)
        counted, shortened = shown, cut(item.text, ordinal, index)
    return DigestItem(
        kind=item.kind,
        text=shown,
        key=clean(item.key) if item.key is not None else None,
        path=clean(item.path) if item.path is not None else None,
        attributes=attributes or None,
        index=index,
        tokens=tokenizer.count(counted),
        cutTokens=tokenizer.count(shortened) if shortened else 0,
    )


def file_form(path: str | None, attributes: dict[str, Any]) -> str:
    """A FILE_CHANGE item's whole form: its own path and stats."""
    return file_line(
        path or "",
        str(attributes.get("changeKind", "modified")),
        as_int(attributes.get("additions")),
        as_int(attributes.get("deletions")),
    )


def as_int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def tokens_held(run: RunNode, digest: RunDigest) -> int:
    """About how many tokens an ended run left in its native thread: its input and the
    text of every item, each counted once (the digest counted those it keeps whole)."""
    counted = {
        item.index: item.tokens for item in digest.items if item.kind is not RunItemKind.FILE_CHANGE
    }
    return digest.inputTokens + sum(
        counted[n] if n in counted else tokenizer.count(item.text)
        for n, item in enumerate(run.items)
    )
