"""OpenAI Codex CLI session logs ("rollouts"): ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl.

Format facts relied on, and where they come from, are in docs/codex.md. In short:
each line is `{"timestamp", "type", "payload"}`; `type` is session_meta,
turn_context (one per turn), event_msg (status stream, not read here) or
response_item (messages, tool calls, tool outputs). An MCP tool call is a
`function_call` response item (`name` like `mcp__codegraph__` + the explore
tool's name, a `call_id`), answered by a `function_call_output` with the same `call_id`.
The final answer of a turn is its last assistant `message`.
"""

from __future__ import annotations

import re
from typing import Hashable, Optional, Sequence

import orjson

from citeledger.core import (
    COMMENTARY, as_double,
    AssistantText, ExploreAnswer, InputError, InputWarning, Origin, ReadOptions, Request, RunLog, ToolResult,
    ToolUse, Transcript, Usage, decode_line, first_line, hookimpl, is_explore, is_file, read_head, read_jsonl, reading,
)
from citeledger.readers.codex_code_mode import CODE_MODE_TOOL, SHELL_CALL, script_output, shell_calls
from citeledger.readers.codex_shell import shell_output
from citeledger.readers.common import phased_answers, quoted, session_name
from citeledger.readers.walker import no_result_warning, js_map_key, js_truthy
from citeledger.readers import whereabouts

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
    # A record naming `sessionId` is no legacy session line: a Gemini log's metadata record (and a
    # Claude interactive event) names it, a Codex line never does, so no file is claimed twice.
    return ("type" not in value and "sessionId" not in value
            and isinstance(value.get("id"), str) and isinstance(value.get("timestamp"), str))


def output_blocks(output) -> tuple[tuple[str, ...], bool]:
    """(text blocks, failed) of a function_call_output's `output`.

    Seen shapes: the text itself; a list of content items (`input_text`,
    `output_text`, MCP `text`); a JSON string of such a list or of an MCP
    CallToolResult (`{"content": [...], "isError": ...}`); an object
    `{"content": ..., "success": false}`. Objects nested in `content` are
    unwrapped in a loop (a hostile log nests them 1,000 deep).
    """
    failed = False
    while isinstance(output, dict):
        failed = failed or output.get("success") is False or js_truthy(output.get("isError"))
        output = output.get("content")
    if isinstance(output, list):
        return tuple(item["text"] for item in output if isinstance(item, dict) and isinstance(item.get("text"), str)), failed
    if not isinstance(output, str):
        return (), failed
    if output[:1] in ("[", "{"):
        try:
            decoded = orjson.loads(output)
        except orjson.JSONDecodeError:
            decoded = None
        if _is_mcp_content(decoded) or isinstance(decoded, dict) and _is_mcp_content(decoded.get("content")):
            blocks, inner = output_blocks(decoded)  # decoded holds no JSON string to decode again
            return blocks, failed or inner
    return (output,), failed


UNREADABLE: dict = {}  # the input of a call whose arguments are not JSON (a redacted log): no field read


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
            return UNREADABLE
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
# The start of a rollout's first line as Codex writes it (`{"timestamp":"…","type":"session_meta",`),
# for a line longer than _SNIFF_LINE (its instructions can be megabytes): known without reading it whole.
_ROLLOUT_START = re.compile(
    rb'(?:\xef\xbb\xbf)?\s*\{\s*(?:"timestamp"\s*:\s*"[^"\\]*"\s*,\s*)?"type"\s*:\s*"session_meta"\s*,')


class CodexReader:
    name = "codex"
    priority = 0
    agent = "codex"

    def whereabouts(self, paths: Sequence[str]):
        return whereabouts.codex(paths)

    def homes(self, environ) -> list[str]:
        return whereabouts.codex_homes(environ)

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
            raw = first_line(path, head, _HEAD, _SNIFF_LINE)
            if raw is None:  # no line, or one longer than the sniff reads: a session_meta line known by its start
                return _ROLLOUT_START.match(head) is not None
            return is_session_record(decode_line(raw))  # decoded as the reading decodes it
        except (OSError, ValueError, RecursionError):
            return False

    def read(self, paths: Sequence[str], options: Optional[ReadOptions] = None) -> Transcript:
        options = ReadOptions() if options is None else options  # made per call: it asks the installed sources
        warnings: list[InputWarning] = []
        items = []
        for path in paths:
            items.extend(self._items(path, warnings, options))
        state = _Reading(options, warnings)
        turn = 0
        requests = TokenCounts()
        starts = turn_marker(items)
        for order, (kind, payload, origin) in enumerate(items):
            if not isinstance(payload, dict):
                continue
            if kind in ("session_meta", "turn_context") and isinstance(payload.get("cwd"), str):
                state.cwd = payload["cwd"]  # relative paths are this directory's (core.source.within)
                state.base = state.base or state.cwd
            if (kind, payload.get("type") if kind == "event_msg" else None) == starts[:2] and starts[2](payload):
                turn += 1
            if kind == "event_msg":
                requests.add(payload, origin)
            if kind != "response_item":
                continue
            ptype = payload.get("type")
            if not isinstance(ptype, str):  # {"type": {...}} is no item (and unhashable in a set test)
                continue
            if ptype == "message" and payload.get("role") == "assistant":
                state.texts.append((turn, message_text(payload), origin, payload.get("phase")))
            elif ptype in CALL_TYPES:
                state.call(payload, ptype, origin, order)
                state.last_call[turn] = len(state.texts)
            elif ptype in OUTPUT_TYPES:
                state.output(payload, origin, order, turn)
        keep = options.keep
        unanswered = [use for key, use in state.uses.items() if key not in state.answered
                      and keep is not None and keep(use.name) and not is_explore(use.name, options.explore_tool)]
        if unanswered:
            warnings.append(no_result_warning(unanswered))
        if state.unreadable:
            first = state.unreadable[0]
            warnings.append(InputWarning(first.file, first.line, f"{len(state.unreadable)} shell call(s) with "
                                         "arguments that are not JSON: no command, not read as file reads"))
        return Transcript(
            name=session_name(paths),
            files=tuple(paths),
            responses=tuple(state.responses),
            results=phased_answers(state.texts),
            assistant_texts=tuple(
                AssistantText(text, t, i >= state.last_call.get(t, -1), origin, COMMENTARY if phase == "commentary" else "")
                for i, (t, text, origin, phase) in enumerate(state.texts)
            ),
            warnings=tuple(warnings),
            reader=self.name,
            turns=max(turn, 1),
            tool_uses=tuple(state.uses.values()),
            tool_results=tuple(state.tool_results),
            explore_answers=tuple(state.answers),
            threads=(None,) if state.uses else (),
            run_log=requests.run_log(),
            cwd=state.base,
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


def turn_marker(items):
    """(kind, event type, test) of the items that start a user turn (docs/codex.md):
    `event_msg` `user_message` (one per prompt), else `task_started`, else (logs
    without events) `turn_context`, else user `message` items."""
    events = {p.get("type") for kind, p, _ in items if kind == "event_msg" and isinstance(p, dict)}
    always = lambda payload: True  # noqa: E731
    if "user_message" in events:
        return "event_msg", "user_message", always
    if "task_started" in events:
        return "event_msg", "task_started", always
    if any(kind == "turn_context" for kind, _, _ in items):
        return "turn_context", None, always
    return "response_item", None, lambda payload: payload.get("type") == "message" and payload.get("role") == "user"


class _Reading:
    """What reading a rollout's response items gathers: calls by key, their outputs."""

    def __init__(self, options: ReadOptions, warnings: list):
        self.options = options
        self.warnings = warnings
        self.names: dict[Hashable, tuple[object, Origin]] = {}
        self.uses: dict[Hashable, ToolUse] = {}
        self.answered: dict[Hashable, Origin] = {}
        self.responses: list[ToolResult] = []  # the explore tool's
        self.tool_results: list[ToolResult] = []
        self.answers: list[ExploreAnswer] = []
        # (turn, text, origin, phase) of every assistant message; turn -> index of its last tool call
        self.texts: list = []
        self.last_call: dict[int, int] = {}
        self.unreadable: list[Origin] = []
        self.workdirs: dict = {}  # call key -> the directory it ran in (a shell call's `workdir`)
        self.scripts: set = set()  # keys of code-mode `exec` calls read as the shell calls they make
        self.cwd: Optional[str] = None
        self.base: Optional[str] = None  # the session's working directory: its first (Transcript.cwd)

    def call(self, payload: dict, ptype: str, origin: Origin, order: int) -> None:
        # Compared as JavaScript Map keys, type included (true is not 1), as the Claude reader does.
        key = js_map_key(payload, "call_id")
        name = LOCAL_SHELL if ptype == "local_shell_call" else payload.get("name")
        given = call_input(payload)
        if name == CODE_MODE_TOOL and ptype == "custom_tool_call" and isinstance(given.get("input"), str):
            shell = shell_calls(given["input"])  # code mode: the shell commands its script runs
            if shell is not None:
                name, given = SHELL_CALL, shell
                self.scripts.add(key)
        if given is UNREADABLE:
            self.unreadable.append(origin)
        workdir = given.get("workdir")
        if isinstance(workdir, str) and workdir and key is not None:  # the call ran there (relative: to the cwd)
            self.workdirs[key] = workdir if workdir.startswith("/") or not self.cwd else self.cwd.rstrip("/") + "/" + workdir
        if key is not None:
            self.answered.pop(key, None)  # a call id used again: its output is this call's
            self.names[key] = (name, origin)
            self.uses[key] = _tool_use(given, name, payload.get("call_id"), key, origin, order)

    def output(self, payload: dict, origin: Origin, order: int, turn: int = 0) -> None:
        call_id = payload.get("call_id")
        key = js_map_key(payload, "call_id")
        known = self.names.get(key) if key is not None else None
        if known is None:
            self.warnings.append(InputWarning(origin.file, origin.line, f"function_call_output for unknown call_id {quoted(call_id)}"))
            return
        name, use_origin = known
        explore = is_explore(name, self.options.explore_tool)
        kept = not explore and self.options.keep is not None and self.options.keep(name)
        first = self.answered.setdefault(key, origin)
        if first is not origin and (explore or kept):
            self.warnings.append(InputWarning(origin.file, origin.line, f"another output for call_id {quoted(call_id)} "
                                              f"(first at {first.file}:{first.line}); counted again"))
        if not (explore or kept):
            return
        blocks, failed = output_blocks(payload.get("output"))
        use = self.uses.get(key)
        if key in self.scripts:
            blocks, stopped = script_output(blocks)
            failed = failed or stopped
        if not explore and use is not None and use.command is not None:
            blocks, exited = shell_output(blocks)
            failed = failed or exited
        if failed:
            return
        result = ToolResult(name=name, blocks=blocks, origin=origin, use=use, cwd=self.workdirs.get(key, self.cwd), tool_use_id=str(call_id),
                            tool_use_origin=use_origin, order=order, turn=turn)
        if explore:
            self.responses.append(result)
            self.answers.append(ExploreAnswer(key, blocks, origin))
        else:
            self.tool_results.append(result)


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
    """A logged count: a non-negative integer, as JavaScript holds it (past 2^53 a float: infra/outside.py)."""
    return as_double(value) if type(value) is int and value >= 0 else 0


def _tool_use(given: dict, name, call_id, key, origin: Origin, order: int) -> ToolUse:
    """A call item as a ToolUse: its input's fields that something reads (the shell
    command as one line), in the main thread (Codex sub-agents are not read)."""

    def text(field):
        value = given.get(field)
        return value if isinstance(value, str) else None

    return ToolUse(
        name if isinstance(name, str) else "", str(call_id), None, origin, order,
        query=text("query"), file_path=text("file_path"),
        path=text("path"), pattern=text("pattern"), key=key, assistant=True,
        command=command_line(given),
    )


@hookimpl
def citeledger_register_readers(register):
    register(CodexReader)
