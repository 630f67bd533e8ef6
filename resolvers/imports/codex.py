"""A Codex rollout file (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`).

Each line is `{"timestamp", "type", "payload"}`. The importer reads `session_meta`
(`payload.id`, `payload.cwd`), `turn_context` (`payload.model`) and `response_item`
lines by `payload.type`: `message` (`role`, `content` parts `input_text` / `output_text`),
`reasoning` (`summary` parts), `function_call` (`name`, `arguments` as JSON text,
`call_id`), `function_call_output` (`call_id`, `output`: JSON text with `output` and
`metadata.exit_code`, or plain text starting `Exit code: N`), `custom_tool_call` (`name`,
`input`, `call_id`: `apply_patch` carries the patch) and `custom_tool_call_output`,
`local_shell_call` (`action.command`). A message's `id`, when the rollout has one, is its
item's key; a tool's output is keyed by its `call_id`. Every other line (`event_msg`,
`compacted`, ...) and payload type is skipped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from graph.models import RunItemKind
from resolvers.imports.session import (
    ImportedRun,
    ParsedSession,
    Reader,
    Step,
    listed,
    mapping,
    output_key,
    relative,
    timestamp,
    trimmed,
)

PROVIDER = "codex"
# What Codex itself puts in user messages: context it injects, not the person's request.
INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "# AGENTS.md instructions",
    "<permissions",
)
SHELLS = {"shell", "container.exec", "local_shell_call", "shell_command", "exec_command"}
EXIT_CODE = re.compile(r"^Exit code: (\d+)")
PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
CHANGE_KIND = {"Add": "added", "Update": "modified", "Delete": "deleted"}


def parse(content: str) -> ParsedSession:
    return _Reader().parse(
        content, PROVIDER, "No session_meta line names the session: this is not a Codex rollout."
    )


class _Reader(Reader):
    def __init__(self) -> None:
        super().__init__()
        self.model: str | None = None

    def foreign(self, line: dict[str, Any]) -> str | None:
        if "payload" not in line and "sessionId" in line:
            return "Claude Code session (CLAUDE_CODE_JSONL)"
        return None

    def read(self, line: dict[str, Any]) -> None:
        if "payload" not in line:
            return  # not a rollout line, nor a Claude Code one: skipped
        payload = mapping(line.get("payload"))
        kind = line.get("type")
        at = timestamp(line.get("timestamp"))
        if kind == "session_meta":
            self.session_id = self.session_id or _text(payload.get("id"))
            self.cwd = self.cwd or _text(payload.get("cwd"))
        elif kind == "turn_context":
            self.model = _text(payload.get("model")) or self.model
        elif kind == "response_item":
            self._item(payload, at)

    def _item(self, payload: dict[str, Any], at: Any) -> None:
        kind = payload.get("type")
        if kind == "message":
            self._message(payload, at)
            return
        run = self.seen(at)
        if run is None:
            return
        if kind == "reasoning":
            summary = listed(payload.get("summary"))
            text = "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
            run.steps.append(Step(RunItemKind.REASONING, text))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self._call(run, payload)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._output(run, payload)

    def _message(self, payload: dict[str, Any], at: Any) -> None:
        role = payload.get("role")
        parts = listed(payload.get("content"))
        text = "\n".join(
            str(p.get("text", "")) for p in parts if isinstance(p, dict) and "text" in p
        ).strip()
        if not text:
            return
        if role == "user" and not text.startswith(INJECTED):
            self.request(text, at, self.model)
            return
        run = self.seen(at)
        if run is None:
            return
        native = _text(payload.get("id"))  # kept by the rollouts that write it
        if role == "assistant":
            run.steps.append(Step(RunItemKind.ASSISTANT_MESSAGE, text, key=native))
        else:  # what Codex injects, and developer or system messages
            run.steps.append(Step(RunItemKind.PROTOCOL, trimmed(text), key=native))

    def _call(self, run: ImportedRun, payload: dict[str, Any]) -> None:
        name = str(payload.get("name") or payload.get("type"))
        given = _arguments(payload)
        call = str(payload.get("call_id") or payload.get("id") or "")
        key = output_key(name, call)
        if name == "apply_patch":
            patch = payload.get("input") if isinstance(payload.get("input"), str) else None
            run.steps.extend(_patched(patch or str(given.get("input", "")), self.cwd))
            self.calls[call] = (key, None)
            return
        if name in SHELLS:
            step = Step(RunItemKind.COMMAND, _command(given))
            run.steps.append(step)
            self.calls[call] = (key, step)
            return
        self.calls[call] = (key, None)

    def _output(self, run: ImportedRun, payload: dict[str, Any]) -> None:
        call = str(payload.get("call_id", ""))
        key, step = self.calls.pop(call, (output_key("tool", call), None))
        output, code = _outcome(payload.get("output"))
        if step is not None and code is not None:
            step.attributes["exitCode"] = code
        if output.strip():
            failed = {"isError": True} if code not in (None, 0) else {}
            run.steps.append(
                Step(RunItemKind.TOOL_OUTPUT, trimmed(output), key=key, attributes=failed)
            )


def _arguments(payload: dict[str, Any]) -> dict[str, Any]:
    if "action" in payload:  # local_shell_call
        return mapping(payload["action"])
    raw = payload.get("arguments")
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return raw if isinstance(raw, dict) else {}


def _command(given: dict[str, Any]) -> str:
    command = given.get("command", given.get("cmd", ""))
    if isinstance(command, list):
        # ["bash", "-lc", "pytest -q"]: the script is what was run.
        words = [str(word) for word in command]
        return words[-1] if len(words) >= 3 and words[1] in ("-lc", "-c") else " ".join(words)
    return str(command)


def _outcome(output: Any) -> tuple[str, int | None]:
    """The output's text and exit code (None when the output does not say)."""
    text = output if isinstance(output, str) else json.dumps(output)
    try:
        parsed = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        parsed = None
    if isinstance(parsed, dict) and "output" in parsed:
        metadata = mapping(parsed.get("metadata"))
        code = metadata.get("exit_code")
        return str(parsed["output"]), code if isinstance(code, int) else None
    found = EXIT_CODE.match(text)
    return text, int(found.group(1)) if found else None


def _patched(patch: str, cwd: str | None) -> list[Step]:
    """One FILE_CHANGE per file an apply_patch names, with its added and removed lines."""
    steps: list[Step] = []
    for line in patch.splitlines():
        found = PATCH_FILE.match(line)
        if found:
            steps.append(
                Step(
                    RunItemKind.FILE_CHANGE,
                    "",
                    path=relative(found.group(2).strip(), cwd),
                    attributes={
                        "changeKind": CHANGE_KIND[found.group(1)],
                        "additions": 0,
                        "deletions": 0,
                    },
                )
            )
        elif steps and line.startswith("+") and not line.startswith("+++"):
            steps[-1].attributes["additions"] += 1
        elif steps and line.startswith("-") and not line.startswith("---"):
            steps[-1].attributes["deletions"] += 1
    return steps


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
