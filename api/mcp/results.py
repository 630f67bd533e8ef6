"""What a tool call answers (ARCHITECTURE "Agents: MCP, complete"; docs/MODEL.md "Agents:
MCP"): its value as structured content and the same value as JSON text, since many
clients hand the model the text alone; a failure as a tool error whose text and
structured content are `{"code", "message"}`, with GraphQL's codes.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, TextContent

from api.mcp.tools import Answer
from graph.errors import ThreadlineError


def as_json(value: Any) -> str:
    """Compact JSON, non-ASCII kept as it is: the text a model reads, at its fewest tokens."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def structured(value: Any) -> dict[str, Any]:
    """Structured content for `value`: an object as it is, anything else as
    `{"result": value}` (MCP's structured content is an object)."""
    return value if isinstance(value, dict) else {"result": value}


def result(answer: Answer) -> CallToolResult:
    """The tool's answer: its value, or its refusal."""
    if answer.failed:
        return refusal(answer)
    return CallToolResult(
        content=[TextContent(type="text", text=as_json(answer.value))],
        structured_content=structured(answer.value),
    )


def refusal(answer: Answer) -> CallToolResult:
    """A tool error whose text and structured content are the failure's code and message."""
    said = {"code": answer.code, "message": answer.message}
    return CallToolResult(
        content=[TextContent(type="text", text=as_json(said))],
        structured_content=said,
        is_error=True,
    )


def failed(error: ThreadlineError) -> Answer:
    return Answer(code=error.code.value, message=error.message)
