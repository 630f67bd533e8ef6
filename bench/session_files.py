"""A generated session (bench/sessions.py) written in its provider's own file format.

Claude Code: one JSON object a line, as `~/.claude/projects/<project>/<id>.jsonl` holds
them: `user` and `assistant` lines chained by `parentUuid`, one line per content block
(`text`, `thinking`, `tool_use`), each tool's result in the next `user` line
(`tool_result` with `tool_use_id`, `content`, `is_error`), and the `file-history-snapshot`
lines the client writes. Codex: a rollout (`~/.codex/sessions/.../rollout-*.jsonl`) of
`{"timestamp", "type", "payload"}` lines: `session_meta`, `turn_context`, `response_item`
(`message`, `reasoning`, `function_call` `shell` and `update_plan`, `function_call_output`
with its JSON `output` and `metadata.exit_code`, `custom_tool_call` `apply_patch`) and the
`event_msg` lines the client writes beside them. The fields are those the importers read
(resolvers/imports/claude_code.py, codex.py) and the ones around them in real files.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from bench.session_script import Edit, Read, Say, Session, Shell, Step, Think, Todos, Write

CLAUDE_VERSION = "2.0.14"
CODEX_VERSION = "0.63.0"
TODO_RESULT = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list "
    "to track your progress. Please proceed with the current tasks if applicable"
)


def written(session: Session) -> str:
    if session.provider == "gemini":
        return json.dumps(_Gemini(session).record(), indent=2) + "\n"
    writer = _ClaudeCode(session) if session.provider == "claude" else _Codex(session)
    return "".join(json.dumps(line) + "\n" for line in writer.lines())


def file_name(name: str, provider: str) -> str:
    """A session's file name: Gemini CLI's is one JSON document, the others JSON lines."""
    return f"{name}.json" if provider == "gemini" else f"{name}.jsonl"


class _Clock:
    """The session's time: each line a few seconds after the one before, each request
    minutes after the last."""

    def __init__(self, started: datetime) -> None:
        self.now = started
        self.ticks = 0

    def tick(self, seconds: int = 0) -> str:
        self.ticks += 1
        self.now += timedelta(seconds=seconds or 3 + self.ticks % 17)
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _ClaudeCode:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.clock = _Clock(session.started)
        self.parent: str | None = None
        self.count = 0
        self.out: list[dict[str, Any]] = []

    def lines(self) -> list[dict[str, Any]]:
        for number, request in enumerate(self.session.requests, start=1):
            at = self.clock.tick(600)
            self.out.append(
                {
                    "type": "file-history-snapshot",
                    "messageId": self._id(),
                    "snapshot": {"trackedFileBackups": {}, "timestamp": at},
                    "isSnapshotUpdate": False,
                }
            )
            self._line("user", {"role": "user", "content": request.text}, at)
            for step in request.steps:
                self._step(step, f"req_{number:03d}")
        return self.out

    def _id(self) -> str:
        self.count += 1
        return str(uuid.uuid5(uuid.UUID(self.session.session_id), str(self.count)))

    def _line(self, kind: str, message: dict[str, Any], at: str, **extra: Any) -> None:
        me = self._id()
        self.out.append(
            {
                "parentUuid": self.parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": self.session.cwd,
                "sessionId": self.session.session_id,
                "version": CLAUDE_VERSION,
                "gitBranch": "main",
                "type": kind,
                "message": message,
                "uuid": me,
                "timestamp": at,
                **extra,
            }
        )
        self.parent = me

    def _assistant(self, block: dict[str, Any], request_id: str, stop: str | None) -> None:
        message = {
            "id": f"msg_{self.count:04d}",
            "type": "message",
            "role": "assistant",
            "model": self.session.model,
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 4 + self.count, "output_tokens": 40 + self.count},
        }
        self._line("assistant", message, self.clock.tick(), requestId=request_id)

    def _step(self, step: Step, request_id: str) -> None:
        if isinstance(step, Say):
            self._assistant({"type": "text", "text": step.text}, request_id, "end_turn")
        elif isinstance(step, Think):
            thinking = {"type": "thinking", "thinking": step.text, "signature": "EqQBCkYIBxgC"}
            self._assistant(thinking, request_id, None)
        else:
            name, given, result, failed = self._tool(step)
            call = f"toolu_{self.count:04d}"
            block = {"type": "tool_use", "id": call, "name": name, "input": given}
            self._assistant(block, request_id, "tool_use")
            part: dict[str, Any] = {"tool_use_id": call, "type": "tool_result", "content": result}
            if failed:
                part["is_error"] = True
            self._line("user", {"role": "user", "content": [part]}, self.clock.tick())

    def _tool(self, step: Step) -> tuple[str, dict[str, Any], str, bool]:
        """The tool's name and input, and its result's text and whether it failed."""
        where = f"{self.session.cwd}/"
        if isinstance(step, Shell):
            given = {"command": step.command, "description": f"Run {step.command.split()[0]}"}
            if step.exit_code == 0:
                return "Bash", given, step.output, False
            return "Bash", given, f"Exit code {step.exit_code}\n{step.output}", True
        if isinstance(step, Read):
            return "Read", {"file_path": where + step.path}, _numbered(step.text), False
        if isinstance(step, Edit):
            given = {"file_path": where + step.path, "old_string": step.old, "new_string": step.new}
            result = (
                f"The file {where}{step.path} has been updated. Here's the result of running "
                f"`cat -n` on a snippet of the edited file:\n{_numbered(step.new)}"
            )
            return "Edit", given, result, False
        if isinstance(step, Write):
            given = {"file_path": where + step.path, "content": step.text}
            return "Write", given, f"File created successfully at: {where}{step.path}", False
        assert isinstance(step, Todos)
        todos = [
            {"content": what, "status": status, "activeForm": what} for what, status in step.items
        ]
        return "TodoWrite", {"todos": todos}, TODO_RESULT, False


class _Codex:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.clock = _Clock(session.started)
        self.calls = 0
        self.out: list[dict[str, Any]] = []

    def lines(self) -> list[dict[str, Any]]:
        cwd = self.session.cwd
        self._put(
            "session_meta",
            {
                "id": self.session.session_id,
                "timestamp": self.clock.tick(),
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": CODEX_VERSION,
                "instructions": None,
                "source": "cli",
                "model_provider": "openai",
                "git": {"branch": "main"},
            },
        )
        self._message(
            "developer",
            "<permissions instructions>sandbox: workspace-write</permissions instructions>",
        )
        self._message(
            "user",
            f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n"
            "</environment_context>",
        )
        for request in self.session.requests:
            self.clock.tick(600)
            self._put(
                "turn_context",
                {
                    "cwd": cwd,
                    "approval_policy": "on-request",
                    "sandbox_policy": {"mode": "workspace-write"},
                    "model": self.session.model,
                    "effort": "medium",
                    "summary": "auto",
                },
            )
            self._message("user", request.text)
            self._put("event_msg", {"type": "user_message", "message": request.text, "images": []})
            for step in request.steps:
                self._step(step)
            self._put("event_msg", {"type": "token_count", "info": None})
        return self.out

    def _put(self, kind: str, payload: dict[str, Any]) -> None:
        self.out.append({"timestamp": self.clock.tick(), "type": kind, "payload": payload})

    def _message(self, role: str, text: str) -> None:
        part = "output_text" if role == "assistant" else "input_text"
        self._put(
            "response_item",
            {"type": "message", "role": role, "content": [{"type": part, "text": text}]},
        )

    def _call_id(self) -> str:
        self.calls += 1
        return f"call_{self.calls:04d}"

    def _step(self, step: Step) -> None:
        if isinstance(step, Say):
            self._message("assistant", step.text)
            self._put("event_msg", {"type": "agent_message", "message": step.text})
        elif isinstance(step, Think):
            summary = [{"type": "summary_text", "text": step.text}]
            payload = {"type": "reasoning", "summary": summary, "content": None}
            self._put("response_item", {**payload, "encrypted_content": "gAAAAB"})
        elif isinstance(step, Shell):
            self._shell(step.command, step.output, step.exit_code)
        elif isinstance(step, Read):
            self._shell(f"sed -n '1,200p' {step.path}", step.text, 0)
        elif isinstance(step, Edit):
            lines = [f"-{line}" for line in step.old.splitlines()]
            lines += [f"+{line}" for line in step.new.splitlines()]
            self._patch(f"*** Update File: {step.path}\n@@\n" + "\n".join(lines), f"M {step.path}")
        elif isinstance(step, Write):
            added = "\n".join(f"+{line}" for line in step.text.splitlines())
            self._patch(f"*** Add File: {step.path}\n{added}", f"A {step.path}")
        else:
            plan = [{"step": what, "status": status} for what, status in step.items]
            self._function("update_plan", {"plan": plan}, "Plan updated")

    def _shell(self, command: str, output: str, exit_code: int) -> None:
        given = {
            "command": ["bash", "-lc", command],
            "workdir": self.session.cwd,
            "timeout_ms": 120000,
        }
        result = {"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 1.2}}
        self._function("shell", given, json.dumps(result))

    def _function(self, name: str, given: dict[str, Any], output: str) -> None:
        call = self._call_id()
        self._put(
            "response_item",
            {
                "type": "function_call",
                "name": name,
                "arguments": json.dumps(given),
                "call_id": call,
            },
        )
        self._put(
            "response_item", {"type": "function_call_output", "call_id": call, "output": output}
        )

    def _patch(self, body: str, changed: str) -> None:
        call = self._call_id()
        patch = f"*** Begin Patch\n{body}\n*** End Patch\n"
        self._put(
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call,
                "name": "apply_patch",
                "input": patch,
            },
        )
        output = (
            "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"
            f"Success. Updated the following files:\n{changed}\n"
        )
        self._put(
            "response_item", {"type": "custom_tool_call_output", "call_id": call, "output": output}
        )


class _Gemini:
    """Gemini CLI's `ConversationRecord`: the session, then its messages: `user`, and
    `gemini` ones, each with its text, its thoughts or one tool call (`toolCalls`, with
    the function response Gemini was given and what the CLI displayed)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.clock = _Clock(session.started)
        self.count = 0
        self.messages: list[dict[str, Any]] = []

    def record(self) -> dict[str, Any]:
        started = self.clock.tick()
        for request in self.session.requests:
            self._message("user", request.text, self.clock.tick(600))
            for step in request.steps:
                self._step(step)
        return {
            "sessionId": self.session.session_id,
            "projectHash": uuid.uuid5(uuid.NAMESPACE_URL, self.session.cwd).hex * 2,
            "startTime": started,
            "lastUpdated": self.clock.tick(),
            "messages": self.messages,
        }

    def _id(self) -> str:
        self.count += 1
        return str(uuid.uuid5(uuid.UUID(self.session.session_id), str(self.count)))

    def _message(self, kind: str, content: str, at: str, **extra: Any) -> None:
        message: dict[str, Any] = {
            "id": self._id(),
            "timestamp": at,
            "type": kind,
            "content": content,
        }
        if kind == "gemini":
            message |= {
                "thoughts": [],
                "tokens": {
                    "input": 900 + self.count,
                    "output": 40 + self.count,
                    "cached": 0,
                    "thoughts": 0,
                    "tool": 0,
                    "total": 940 + 2 * self.count,
                },
                "model": self.session.model,
            }
        self.messages.append(message | extra)

    def _step(self, step: Step) -> None:
        at = self.clock.tick()
        if isinstance(step, Say):
            self._message("gemini", step.text, at)
        elif isinstance(step, Think):
            subject, _, rest = step.text.partition(". ")
            thought = {"subject": subject, "description": rest or subject, "timestamp": at}
            self._message("gemini", "", at, thoughts=[thought])
        else:
            name, given, output, shown = self._tool(step)
            call = f"{name}-{1763600000000 + self.count * 1000}-{self.count:04x}"
            response = {
                "functionResponse": {"id": call, "name": name, "response": {"output": output}}
            }
            tool = {
                "id": call,
                "name": name,
                "args": given,
                "result": [response],
                "status": "success",
                "timestamp": at,
                "displayName": DISPLAY[name],
                "resultDisplay": shown,
                "renderOutputAsMarkdown": name != "run_shell_command",
            }
            self._message("gemini", "", at, toolCalls=[tool])

    def _tool(self, step: Step) -> tuple[str, dict[str, Any], str, str]:
        """The tool's name and arguments, what Gemini was given and what the CLI showed."""
        where = f"{self.session.cwd}/"
        if isinstance(step, Shell):
            given = {"command": step.command, "description": f"Run {step.command.split()[0]}"}
            output = (
                f"Command: {step.command}\nDirectory: (root)\nOutput: {step.output}\n"
                f"Error: (none)\nExit Code: {step.exit_code}\nSignal: (none)\n"
                "Background PIDs: (none)\nProcess Group PGID: 41230"
            )
            return "run_shell_command", given, output, step.output
        if isinstance(step, Read):
            return "read_file", {"absolute_path": where + step.path}, step.text, ""
        if isinstance(step, Edit):
            given = {
                "file_path": where + step.path,
                "old_string": step.old,
                "new_string": step.new,
                "instruction": f"Update {step.path}",
            }
            said = f"Successfully modified file: {where}{step.path} (1 replacements)."
            return "replace", given, said, said
        if isinstance(step, Write):
            given = {"file_path": where + step.path, "content": step.text}
            said = f"Successfully created and wrote to new file: {where}{step.path}."
            return "write_file", given, said, said
        assert isinstance(step, Todos)
        todos = [{"description": what, "status": status} for what, status in step.items]
        said = "Successfully updated the todo list."
        return "write_todos", {"todos": todos}, said, said


DISPLAY = {
    "run_shell_command": "Shell",
    "read_file": "ReadFile",
    "replace": "Edit",
    "write_file": "WriteFile",
    "write_todos": "WriteTodos",
}


def _numbered(text: str) -> str:
    """A file's text as Claude Code's Read and Edit results show it: numbered lines."""
    return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(text.splitlines(), start=1))
