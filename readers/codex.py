"""OpenAI Codex CLI session logs ("rollouts"): ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl.

Format facts relied on, and where they come from, are in docs/codex.md. In short:
each line is `{"timestamp", "type", "payload"}`; `type` is session_meta,
turn_context (one per turn), event_msg (status stream, not read here) or
response_item (messages, tool calls, tool outputs). An MCP tool call is a
`function_call` response item (`name` like `mcp__codegraph__codegraph_explore`,
a `call_id`), answered by a `function_call_output` with the same `call_id`.
The final answer of a turn is its last assistant `message`.
"""

from __future__ import annotations

import os
from typing import Hashable, Optional, Sequence

import orjson

from citeledger.core import (
    AssistantText, InputError, InputWarning, Origin, ReadOptions, Request, RunLog, ToolResponse, ToolResult, ToolUse,
    Transcript, Usage, hookimpl, is_file, open_regular, read_head, read_jsonl, reading,
)
from citeledger.readers.common import final_answers, session_name
from citeledger.readers.walker import js_truthy

ROLLOUT_TYPES = frozenset({"session_meta", "turn_context", "event_msg", "response_item", "compacted"})
# Response items written bare, one per line, by rollouts older than the payload envelope.
RESPONSE_ITEM_TYPES = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
    "custom_tool_call_output", "local_shell_call", "web_search_call",
})
CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
# A local_shell_call has no name: it is recorded under this one.
LOCAL_SHELL = "local_shell"
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"})
OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output"})


def rollout_item(value) -> tuple[Optional[str], object]:
    """(kind, payload) of one line: the envelope's, or a bare legacy response item's."""
    if not isinstance(value, dict):
        return None, None
    kind = value.get("type")
    if not isinstance(kind, str):  # {"type": []} is no item (and a list is unhashable)
        return None, None
    if kind in ROLLOUT_TYPES and "payload" in value:
        return kind, value["payload"]
    if kind in RESPONSE_ITEM_TYPES:
        return "response_item", value
    return None, None


def is_session_record(value) -> bool:
    """A rollout's first line: `{"type": "session_meta", "payload": {...}}`, or a
    legacy log's bare session line (`{"id", "timestamp", ...}` and no `type`)."""
    if not isinstance(value, dict):
        return False
    if value.get("type") == "session_meta":
        return isinstance(value.get("payload"), dict)
    return "type" not in value and isinstance(value.get("id"), str) and isinstance(value.get("timestamp"), str)


def output_blocks(output) -> tuple[tuple[str, ...], bool]:
    """(text blocks, failed) of a function_call_output's `output`.

    Seen shapes: the text itself; a list of content items (`input_text`,
    `output_text`, MCP `text`); a JSON string of such a list or of an MCP
    CallToolResult (`{"content": [...], "isError": ...}`); an object
    `{"content": ..., "success": false}`.
    """
    if isinstance(output, dict):
        blocks, failed = output_blocks(output.get("content"))
        return blocks, failed or output.get("success") is False or js_truthy(output.get("isError"))
    if isinstance(output, list):
        return tuple(item["text"] for item in output if isinstance(item, dict) and isinstance(item.get("text"), str)), False
    if not isinstance(output, str):
        return (), False
    if output[:1] in ("[", "{"):
        try:
            decoded = orjson.loads(output)
        except orjson.JSONDecodeError:
            decoded = None
        if _is_mcp_content(decoded) or isinstance(decoded, dict) and _is_mcp_content(decoded.get("content")):
            return output_blocks(decoded)
    return (output,), False


def call_input(payload: dict) -> dict:
    """The input of a call item as a dict: `arguments` (a JSON string) decoded, a
    local_shell_call's `action`, a custom tool's `input` text under "input"."""
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        return action if isinstance(action, dict) else {}
    arguments = payload.get("arguments")
    if isinstance(arguments, str):
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return {}
        return decoded if isinstance(decoded, dict) else {}
    if isinstance(arguments, dict):
        return arguments
    text = payload.get("input")
    return {"input": text} if isinstance(text, str) else {}


def command_line(given: dict):
    """A shell call's command as one line: `bash -lc SCRIPT` is SCRIPT; another argv is joined by spaces."""
    command = given.get("command", given.get("cmd"))
    if isinstance(command, str):
        return command
    if isinstance(command, list) and command and all(isinstance(a, str) for a in command):
        if len(command) >= 3 and command[0] in _SHELLS and command[1] in ("-c", "-lc", "-l"):
            return command[-1]
        return " ".join(command)
    return None


def shell_output(blocks: tuple) -> tuple[tuple[str, ...], bool]:
    """A shell call's output: `{"output": ..., "metadata": {"exit_code": N}}` as its text
    (a non-zero exit is a failure, as Claude Code's `is_error`), anything else as is."""
    if len(blocks) == 1 and blocks[0][:1] == "{":
        try:
            decoded = orjson.loads(blocks[0])
        except orjson.JSONDecodeError:
            return blocks, False
        if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
            meta = decoded.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            return (decoded["output"],), isinstance(code, int) and code != 0
    return blocks, False


def _is_mcp_content(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(i, dict) and "type" in i for i in value)


def message_text(payload: dict) -> str:
    content = payload.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        item["text"] for item in content
        if isinstance(item, dict) and item.get("type") in ("output_text", "text") and isinstance(item.get("text"), str)
    )


_SNIFF_LINE = 8 << 20  # bytes of one line read while sniffing (session_meta carries the instructions)
_HEAD = 4096  # read first: a Claude transcript's first line nearly always fits


class CodexReader:
    name = "codex"
    priority = 0

    def claims(self, path: str) -> bool:
        """A .jsonl file whose first record is a Codex session record (docs/codex.md).

        Only the first non-blank line is read: a rollout opens with its
        session record (`session_meta`, or the bare session line of a legacy
        log), and a Claude transcript never does, whatever Codex-looking
        events (`"type": "message"`) follow its first line.
        """
        if not (path.endswith(".jsonl") and is_file(path)):
            return False
        try:
            head = read_head(path, _HEAD)
            whole = len(head) < _HEAD  # the file ends inside the head: its last line is complete too
            lines = head.split(b"\n")
            for raw in lines if whole else lines[:-1]:
                if raw.strip():
                    return is_session_record(orjson.loads(raw))
            if whole:
                return False
            with open_regular(path) as fh:  # no whole non-blank line in the head: read on
                # Bounded reads: sniffing must not load a 200 MB line whole.
                for raw in iter(lambda: fh.readline(_SNIFF_LINE), b""):
                    if len(raw) == _SNIFF_LINE and not raw.endswith(b"\n"):
                        return False  # a line this long opens no rollout we know
                    if raw.strip():
                        return is_session_record(orjson.loads(raw))
        except (OSError, orjson.JSONDecodeError):
            return False
        return False

    def read(self, paths: Sequence[str], options: ReadOptions = ReadOptions()) -> Transcript:
        warnings: list[InputWarning] = []
        names: dict[Hashable, tuple[object, Origin]] = {}
        responses: list[ToolResponse] = []
        uses: dict[Hashable, ToolUse] = {}
        tool_results: list[ToolResult] = []
        # (turn, text, origin) of every assistant message; turn -> index of its last tool call
        texts: list[tuple[int, str, Origin]] = []
        last_call: dict[int, int] = {}
        items = []
        for path in paths:
            items.extend(self._items(path, warnings, options))
        # `turn_context` marks turns; a log without any falls back to user messages.
        by_context = any(kind == "turn_context" for kind, _, _ in items)
        turn = 0
        requests = TokenCounts()
        for order, (kind, payload, origin) in enumerate(items):
            if kind == "turn_context" and by_context:
                turn += 1
            if kind == "event_msg" and isinstance(payload, dict):
                requests.add(payload, origin)
            if kind != "response_item" or not isinstance(payload, dict):
                continue
            ptype = payload.get("type")
            if not isinstance(ptype, str):  # {"type": {...}} is no item (and unhashable in a set test)
                continue
            if ptype == "message" and payload.get("role") == "user" and not by_context:
                turn += 1
            elif ptype == "message" and payload.get("role") == "assistant":
                texts.append((turn, message_text(payload), origin))
            elif ptype in CALL_TYPES:
                call_id = payload.get("call_id")
                name = LOCAL_SHELL if ptype == "local_shell_call" else payload.get("name")
                if isinstance(call_id, Hashable):
                    names[call_id] = (name, origin)
                    uses[call_id] = _tool_use(payload, name, call_id, origin, order)
                last_call[turn] = len(texts)
            elif ptype in OUTPUT_TYPES:
                self._output(payload, origin, names, responses, warnings, options, uses, tool_results, order)
        return Transcript(
            name=session_name(paths),
            files=tuple(paths),
            responses=tuple(responses),
            results=final_answers(texts),
            assistant_texts=tuple(
                AssistantText(text, t, i >= last_call.get(t, -1), origin)
                for i, (t, text, origin) in enumerate(texts)
            ),
            warnings=tuple(warnings),
            reader=self.name,
            turns=max(turn, 1),
            tool_uses=tuple(uses.values()),
            tool_results=tuple(tool_results),
            run_log=requests.run_log(),
        )

    def _items(self, path: str, warnings: list, options: ReadOptions):
        found = lines = 0
        with reading(path, "a Codex rollout file"):
            for line in read_jsonl(path, warnings, options.max_line_bytes):
                lines += 1
                kind, payload = rollout_item(line.value)
                if kind is not None:
                    found += 1
                    yield kind, payload, Origin(path, line.number)
        if found == 0 and lines:
            raise InputError(path, "not a Codex CLI rollout (no session_meta/turn_context/response_item lines)")
        if found == 0:
            warnings.append(InputWarning(path, 0, "empty file"))

    @staticmethod
    def _output(payload, origin, names, responses, warnings, options, uses, tool_results, order) -> None:
        call_id = payload.get("call_id")
        known = names.get(call_id) if isinstance(call_id, Hashable) else None
        if known is None:
            warnings.append(InputWarning(origin.file, origin.line, f"function_call_output for unknown call_id {call_id!r}"))
            return
        name, use_origin = known
        if not (isinstance(name, str) and options.explore_tool in name):
            if options.keep is not None and options.keep(name):  # a tool some source reads
                blocks, failed = output_blocks(payload.get("output"))
                use = uses.get(call_id)
                if use is not None and use.command is not None:
                    blocks, exited = shell_output(blocks)
                    failed = failed or exited
                if not failed:
                    tool_results.append(ToolResult(name, blocks, origin, use))
            return
        blocks, failed = output_blocks(payload.get("output"))
        if not failed:
            responses.append(ToolResponse(blocks, str(call_id), origin, None, use_origin, order))


class TokenCounts:
    """A rollout's requests, from its `token_count` events (core/run_log.py).

    Each one after a model request gives `last_token_usage` (that request's
    input tokens, cached ones included, and output) and the running
    `total_token_usage`; an event whose total is the previous one's repeats it
    (Codex writes one again when only its rate limits changed). Nothing else
    of a run log is in a rollout: the rest stays None.
    """

    def __init__(self):
        self.requests: list[Request] = []
        self.logged = False
        self._total = None

    def add(self, payload: dict, origin: Origin) -> None:
        if payload.get("type") != "token_count":
            return
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        self.logged = True
        total, last = info.get("total_token_usage"), info.get("last_token_usage")
        if total == self._total or not isinstance(last, dict):
            return
        self._total = total
        given, cached, out = (_count(last.get(k)) for k in ("input_tokens", "cached_input_tokens", "output_tokens"))
        self.requests.append(Request(usage=Usage(input_tokens=given - min(cached, given), cache_read_tokens=min(cached, given),
                                                 output_tokens=out), origin=origin))

    def run_log(self) -> Optional[RunLog]:
        return RunLog(usage_only=tuple(self.requests)) if self.logged else None


def _count(value) -> int:
    return value if type(value) is int and value >= 0 else 0


def _tool_use(payload: dict, name, call_id, origin: Origin, order: int) -> ToolUse:
    """A call item as a ToolUse: its input's fields that something reads (the shell
    command as one line), in the main thread (Codex sub-agents are not read)."""
    given = call_input(payload)

    def text(key):
        value = given.get(key)
        return value if isinstance(value, str) else None

    return ToolUse(
        name if isinstance(name, str) else "", str(call_id), None, origin, order,
        query=text("query"), file_path=text("file_path"),
        path=text("path"), pattern=text("pattern"), key=call_id, assistant=True,
        command=command_line(given),
    )


@hookimpl
def citeledger_register_readers(register):
    register(CodexReader)
