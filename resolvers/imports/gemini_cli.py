"""A Gemini CLI session file (`~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json`).

One JSON object, Gemini CLI's `ConversationRecord`: `sessionId` and `messages`, each with
`id`, `timestamp`, `type` (`user`, `gemini`; `info`, `error`, `warning` and any other are
skipped) and `content` (a string, or parts with `text`). A `gemini` message also has
`model`, `thoughts` (`subject`, `description`) and `toolCalls` (`id`, `name`, `args`,
`status`, `result`: function-response parts whose `response` holds `output` or `error`,
and `resultDisplay`). The tools read: `run_shell_command` (`command`; its output's
`Exit Code: N`), `write_file` (`file_path`, `content`), `replace` (`file_path`,
`old_string`, `new_string`), `write_todos` (`todos` with `description`, `status`) and
`read_file` (`absolute_path` or `file_path`, the resource its output answers). A command
whose exit code is not 0, or a call whose `status` is `error` or `cancelled`, has an
output marked `isError`. A message's
`id` is its items' key; a tool's output is keyed by the call's `id`. The file names no
working folder, so paths stay as the tools gave them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from graph.errors import invalid
from graph.models import RunItemKind
from resolvers.imports.session import (
    ImportedRun,
    ParsedSession,
    Reader,
    Step,
    line_count,
    listed,
    mapping,
    output_key,
    timestamp,
    trimmed,
)

PROVIDER = "gemini"
EXIT_CODE = re.compile(r"^Exit Code: (\d+)", re.MULTILINE)
EDITS = {"write_file": "written", "replace": "modified"}
READS = ("absolute_path", "file_path")


def parse(content: str) -> ParsedSession:
    try:
        record = json.loads(content)
    except json.JSONDecodeError as error:
        raise invalid(f"The file is not valid JSON: {error.msg} (line {error.lineno}).") from error
    if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
        raise invalid("The file holds no messages: this is not a Gemini CLI session file.")
    reader = _Reader()
    reader.session_id = _text(record.get("sessionId"))
    if reader.session_id is None:
        raise invalid("The file names no sessionId: this is not a Gemini CLI session file.")
    for number, message in enumerate(record["messages"], start=1):
        reader.number = number
        reader.read(mapping(message))
    return ParsedSession(reader.session_id, PROVIDER, None, reader.runs)


class _Reader(Reader):
    def read(self, line: dict[str, Any]) -> None:
        at = timestamp(line.get("timestamp"))
        ident = _text(line.get("id"))
        kind = line.get("type")
        if kind == "user":
            text = _content(line.get("content")).strip()
            if text:
                self.request(text, at)
            self.seen(at)
        elif kind == "gemini":
            run = self.seen(at)
            if run is not None:
                self._gemini(run, line, ident)

    def _gemini(self, run: ImportedRun, message: dict[str, Any], ident: str | None) -> None:
        run.model = _text(message.get("model")) or run.model
        for thought in listed(message.get("thoughts")):
            said = mapping(thought)
            text = ": ".join(
                str(said[part]) for part in ("subject", "description") if said.get(part)
            )
            if text:
                run.steps.append(Step(RunItemKind.REASONING, text, key=ident))
        text = _content(message.get("content")).strip()
        if text:
            run.steps.append(Step(RunItemKind.ASSISTANT_MESSAGE, text, key=ident))
        for call in listed(message.get("toolCalls")):
            self._call(run, mapping(call))

    def _call(self, run: ImportedRun, call: dict[str, Any]) -> None:
        name = str(call.get("name") or "tool")
        given = mapping(call.get("args"))
        ident = _text(call.get("id"))
        failed = call.get("status") in ("error", "cancelled")
        output = _output(call)
        step: Step | None = None
        if name == "run_shell_command":
            step = Step(RunItemKind.COMMAND, str(given.get("command", "")))
            code = EXIT_CODE.search(output)
            if code:
                step.attributes["exitCode"] = int(code.group(1))
                failed = failed or code.group(1) != "0"  # its output is an error's, as elsewhere
            elif failed:
                step.attributes["outcome"] = "failed"
            else:
                step.attributes["exitCode"] = 0
        elif name in EDITS:
            new = str(given.get("content" if name == "write_file" else "new_string") or "")
            step = Step(
                RunItemKind.FILE_CHANGE,
                "",
                path=str(given.get("file_path", "")),
                attributes={
                    "changeKind": EDITS[name],
                    "additions": line_count(new),
                    "deletions": line_count(str(given.get("old_string") or "")),
                },
            )
        elif name == "write_todos":
            for todo in listed(given.get("todos")):
                each = mapping(todo)
                text = str(each.get("description", ""))
                status = str(each.get("status", ""))
                run.steps.append(
                    Step(RunItemKind.TODO, text, key=text, attributes={"status": status})
                )
        if step is not None:
            run.steps.append(step)
        if output.strip():
            resource = next((_text(given.get(f)) for f in READS if _text(given.get(f))), None)
            answers = resource if name == "read_file" and resource else ident
            attributes = {"isError": True} if failed else {}
            run.steps.append(
                Step(
                    RunItemKind.TOOL_OUTPUT,
                    trimmed(output),
                    key=output_key(name, answers),
                    attributes=attributes,
                )
            )


def _content(value: Any) -> str:
    """A message's text: a string, or its parts' `text` joined."""
    if isinstance(value, str):
        return value
    return "\n".join(str(part["text"]) for part in map(mapping, listed(value)) if "text" in part)


def _output(call: dict[str, Any]) -> str:
    """What the tool answered: its function response's `output` (or `error`), else what
    the CLI displayed when that is text."""
    for part in listed(call.get("result")):
        response = mapping(mapping(mapping(part).get("functionResponse")).get("response"))
        for field in ("output", "error"):
            if isinstance(response.get(field), str):
                return str(response[field])
    shown = call.get("resultDisplay")
    return shown if isinstance(shown, str) else ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
