"""Which format a session file is in, told from its content (docs/MODEL.md "Session
import"): each format's own marks, and the file is the one format whose marks it has.

- Gemini CLI (`GEMINI_CLI_JSON`): the whole content is one JSON object with `sessionId`
  and a `messages` list.
- Claude Code (`CLAUDE_CODE_JSONL`): JSON lines, one with a `type` and a `sessionId` and no
  `payload`.
- Codex (`CODEX_ROLLOUT_JSONL`): JSON lines, one with a `type` and a `payload` object.

Only the first SNIFF_LINES lines that are JSON objects are looked at. No format's marks,
or more than one format's, is INVALID_INPUT naming what it matched (or every format).
"""

from __future__ import annotations

import json
from typing import Any

from graph.errors import invalid
from graph.models import SessionFormat

SNIFF_LINES = 50
BYTE_ORDER_MARK = "\ufeff"


def without_bom(content: str) -> str:
    """The content without a leading byte-order mark: an editor that saved the file with
    one changed nothing of the session."""
    return content.removeprefix(BYTE_ORDER_MARK)


def decoded(raw: bytes) -> str:
    """A session file's bytes as text: UTF-8, a byte-order mark dropped; INVALID_INPUT for
    bytes that are not UTF-8 (every format is UTF-8 JSON), naming where."""
    try:
        return without_bom(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise invalid(
            f"The file is not UTF-8 text (byte {error.start}): no session format this service "
            "reads is."
        ) from error


def detect(content: str) -> SessionFormat:
    found = candidates(content)
    if len(found) == 1:
        return found[0]
    named = ", ".join(each.value for each in (found or list(SessionFormat)))
    if not found:
        raise invalid(f"The content matches no session format this service reads ({named}).")
    raise invalid(f"The content matches more than one session format ({named}): give format.")


def candidates(content: str) -> list[SessionFormat]:
    """The formats whose marks `content` has, in the enum's order."""
    found: set[SessionFormat] = set()
    whole = _json(content)
    if isinstance(whole, dict) and _gemini(whole):
        found.add(SessionFormat.GEMINI_CLI_JSON)
    seen = 0
    for line in content.splitlines():
        if seen >= SNIFF_LINES:
            break
        value = _json(line) if line.strip() else None
        if not isinstance(value, dict):
            continue
        seen += 1
        if "type" in value and "sessionId" in value and "payload" not in value:
            found.add(SessionFormat.CLAUDE_CODE_JSONL)
        if "type" in value and isinstance(value.get("payload"), dict):
            found.add(SessionFormat.CODEX_ROLLOUT_JSONL)
    return [each for each in SessionFormat if each in found]


def _gemini(value: dict[str, Any]) -> bool:
    return isinstance(value.get("sessionId"), str) and isinstance(value.get("messages"), list)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
