"""What of a text may reach a handoff (docs/MODEL.md, "Faithful handoffs"): control
characters never do.

C0 characters other than newline and tab, DEL and C1 (U+0080-U+009F) are removed, and ANSI
escape sequences (ESC `[` ... final byte) are removed whole, before an item's text is
measured or shown. A NUL or a terminal colour code in a command's output would otherwise
reach the model that reads the handoff, and every client that shows it.
"""

from __future__ import annotations

import re

# ESC [ parameter bytes, intermediate bytes, one final byte (ECMA-48 CSI).
_CSI = re.compile(r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """`text` without ANSI escape sequences and control characters (newline and tab kept)."""
    if text.isprintable():  # the common case: nothing to remove (newlines are not printable)
        return text
    return _CONTROL.sub("", _CSI.sub("", text))
