"""A Claude Code session file (`~/.claude/projects/<project>/<session id>.jsonl`).

Each line is a JSON object. The importer reads lines of `type` `user` and `assistant`:
`sessionId`, `cwd`, `timestamp`, `isMeta`, `isSidechain`, and `message` with `role`,
`model` and `content` (a string, or parts: `text`, `thinking`, `tool_use` with `id`,
`name`, `input`; `tool_result` with `tool_use_id`, `content`, `is_error`), and `uuid`, the
line's own id, which the items it becomes keep as their key (but the first request's
goal). Every other line type (`summary`, `system`, `file-history-snapshot`, ...) is skipped.
"""

from __future__ import annotations

import re
from typing import Any

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
    relative,
    timestamp,
    trimmed,
)

PROVIDER = "claude"
# Lines Claude Code writes for the person's slash commands and their local output: not
# requests to the model.
COMMAND_MARKERS = ("<command-name>", "<command-message>", "<command-args>", "<local-command-")
EDITS = {
    "Edit": "modified",
    "MultiEdit": "modified",
    "Write": "written",
    "NotebookEdit": "modified",
}
EXIT_CODE = re.compile(r"^Exit code (\d+)")
# Tools whose output is the resource they read: a later read of the same resource
# supersedes it (docs/MODEL.md "Session import"), by the input naming that resource.
READS = {"Read": "file_path", "NotebookRead": "notebook_path"}


def parse(content: str) -> ParsedSession:
    return _Reader().parse(
        content, PROVIDER, "No line names its sessionId: this is not a Claude Code session file."
    )


class _Reader(Reader):
    def foreign(self, line: dict[str, Any]) -> str | None:
        if "payload" in line and "sessionId" not in line:
            return "Codex rollout (CODEX_ROLLOUT_JSONL)"
        return None

    def read(self, line: dict[str, Any]) -> None:
        self.session_id = self.session_id or _text(line.get("sessionId"))
        self.cwd = self.cwd or _text(line.get("cwd"))
        kind = line.get("type")
        if kind not in ("user", "assistant") or line.get("isSidechain"):
            return  # a subagent's own conversation comes back as its Task tool's result
        message = mapping(line.get("message"))
        at = timestamp(line.get("timestamp"))
        if kind == "user":
            self._user(line, message, at)
        else:
            self._assistant(message, at, _text(line.get("uuid")))

    def _user(self, line: dict[str, Any], message: dict[str, Any], at: Any) -> None:
        parts = _parts(message.get("content"))
        for part in parts:
            if part.get("type") == "tool_result":
                self._result(part)
        text = "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text").strip()
        injected = bool(line.get("isMeta")) or text.startswith(COMMAND_MARKERS)
        if text and not injected:
            self.request(text, at)
        elif text and self.current is not None:
            uuid = _text(line.get("uuid"))
            self.current.steps.append(Step(RunItemKind.PROTOCOL, trimmed(text), key=uuid))
        self.seen(at)

    def _assistant(self, message: dict[str, Any], at: Any, uuid: str | None) -> None:
        run = self.seen(at)
        if run is None:
            return  # nothing asked yet: a resumed session's replayed context
        run.model = _text(message.get("model")) or run.model
        for part in _parts(message.get("content")):
            kind = part.get("type")
            if kind == "text" and str(part.get("text", "")).strip():
                said = str(part["text"]).strip()
                run.steps.append(Step(RunItemKind.ASSISTANT_MESSAGE, said, key=uuid))
            elif kind == "thinking":
                thought = str(part.get("thinking", ""))
                run.steps.append(Step(RunItemKind.REASONING, thought, key=uuid))
            elif kind == "tool_use":
                self._call(run, part)

    def _call(self, run: ImportedRun, part: dict[str, Any]) -> None:
        name = str(part.get("name", "tool"))
        given = mapping(part.get("input"))
        step: Step | None = None
        if name == "Bash":
            step = Step(RunItemKind.COMMAND, str(given.get("command", "")))
        elif name in EDITS:
            path = str(given.get("file_path") or given.get("notebook_path") or "")
            added, removed = _edit_size(given)
            step = Step(
                RunItemKind.FILE_CHANGE,
                "",
                path=relative(path, self.cwd),
                attributes={"changeKind": EDITS[name], "additions": added, "deletions": removed},
            )
        elif name == "TodoWrite":
            for todo in given.get("todos") or []:
                if isinstance(todo, dict):
                    text = str(todo.get("content", ""))
                    status = str(todo.get("status", ""))
                    run.steps.append(
                        Step(RunItemKind.TODO, text, key=text, attributes={"status": status})
                    )
        if step is not None:
            run.steps.append(step)
        call = str(part.get("id", ""))
        self.calls[call] = (self._answers(name, given, call), step)

    def _answers(self, name: str, given: dict[str, Any], call: str) -> str | None:
        """The key of the call's output: the resource a read tool reads (its path, and the
        lines asked for when not the whole file), else the call's id."""
        resource = _text(given.get(READS.get(name, "")))
        if resource is None:
            return output_key(name, call)
        lines = [f"{field}={given[field]}" for field in ("offset", "limit") if field in given]
        suffix = f"#{','.join(lines)}" if lines else ""
        return output_key(name, relative(resource, self.cwd) + suffix)

    def _result(self, part: dict[str, Any]) -> None:
        call = str(part.get("tool_use_id", ""))
        key, step = self.calls.pop(call, (output_key("tool", call), None))
        output = _result_text(part.get("content"))
        failed = bool(part.get("is_error"))
        run = self.current
        if step is not None and step.kind is RunItemKind.COMMAND:
            code = EXIT_CODE.match(output)
            if code:
                step.attributes["exitCode"] = int(code.group(1))
            elif not failed:
                step.attributes["exitCode"] = 0
            else:
                step.attributes["outcome"] = "failed"
        if run is not None and output.strip():
            attributes = {"isError": True} if failed else {}
            run.steps.append(
                Step(RunItemKind.TOOL_OUTPUT, trimmed(output), key=key, attributes=attributes)
            )


def _parts(content: Any) -> list[dict[str, Any]]:
    """A message's content as parts: a plain string is one text part."""
    given = [{"type": "text", "text": content}] if isinstance(content, str) else listed(content)
    return [mapping(part) for part in given]


def _edit_size(given: dict[str, Any]) -> tuple[int, int]:
    """Lines added and removed by an Edit, MultiEdit or Write call."""
    edits = listed(given.get("edits")) or [given]
    added = removed = 0
    for edit in edits:
        if isinstance(edit, dict):
            added += line_count(str(edit.get("new_string") or edit.get("content") or ""))
            removed += line_count(str(edit.get("old_string") or ""))
    return added, removed


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
