"""opencode session exports: the JSON `opencode export <session>` prints (issue 41).

One document: `{"info": {"id": "ses_...", "directory", "version", "model", "time"},
"messages": [{"info": {"role", "id", "path": {"cwd"}, ...}, "parts": [...]}]}`. A user
message whose parts hold text the person typed (not `synthetic`) opens a turn. An
assistant message's parts are `text` (the model's words: a turn's answer is its last
text), `reasoning`, `step-start`/`step-finish` and `tool` parts; a tool part holds its call
and its result together: `tool` (read, bash, grep, glob, list, write, edit, task, ...),
`callID`, `state: {status, input, output}`. A part in status `completed` put its `output` in
the context; `error` is a failed call (no retrieval); one still `pending`/`running` has no
result and is said once. Line numbers are where a part's id (a tool's `callID`) is
written. Facts read off opencode 1.17.18's export: docs/transcripts-as-found.md.
"""

from __future__ import annotations

import datetime
import os
import re
from typing import Optional, Sequence

import orjson

from citeledger.core import (
    BOM, AssistantText, InputError, InputWarning, Origin, ReadOptions, ToolResult, ToolUse, Transcript,
    Whereabouts, decode_line, hookimpl, is_file, open_regular, read_head, reading,
)
from citeledger.readers.common import IdLines, session_name
from citeledger.readers.walker import MISSING, js_type, no_result_warning

_HEAD = 4096
_DOC_HEAD = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"info"\s*:\s*\{\s*"id"\s*:\s*"ses_')
# What each tool's input names (ToolUse fields): opencode's camelCase keys.
_INPUT = {"filePath": "file_path", "path": "path", "pattern": "pattern", "command": "command",
          "description": "description", "subagent_type": "subagent_type", "query": "query"}
_WRITES = {"write": "content", "edit": "newString"}


class OpencodeReader:
    name = "opencode"
    priority = 0  # claims only a document whose head is an opencode export's
    agent = "opencode"
    ends_with_result = False  # an export has no result event: a session without one has not failed

    def claims(self, path: str) -> bool:
        """A `.json` file opening with `{"info": {"id": "ses_...`: `opencode export`'s document."""
        if not (path.endswith(".json") and is_file(path)):
            return False
        try:
            return bool(_DOC_HEAD.match(read_head(path, _HEAD)))
        except (OSError, ValueError):
            return False

    def whereabouts(self, paths: Sequence[str]) -> Whereabouts:
        """The export's `info`: its creation time, model, directory."""
        info = _parsed(paths[0], _raw(paths[0], 64 << 20)).get("info")
        info = info if isinstance(info, dict) else {}
        model = info.get("model") if isinstance(info.get("model"), dict) else {}
        created = (info.get("time") or {}).get("created") if isinstance(info.get("time"), dict) else None
        started = None
        if type(created) in (int, float) and 0 <= created < 1e14:
            started = datetime.datetime.fromtimestamp(created / 1000, datetime.timezone.utc).isoformat()
        return Whereabouts(started=started, model=_text(model.get("id")), project=_text(info.get("directory")),
                           agent=self.agent)

    def read(self, paths: Sequence[str], options: Optional[ReadOptions] = None) -> Transcript:
        options = ReadOptions() if options is None else options
        path = paths[0]
        warnings: list[InputWarning] = []
        with reading(path, "an opencode session export"):
            data = _raw(path, options.max_line_bytes)
        doc = _parsed(path, data)
        messages = doc.get("messages", MISSING)
        if not isinstance(messages, list):
            raise InputError(path, f"export's messages is {js_type(messages)}, not a list")
        info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
        walk = _Walk(path, IdLines(data), options, warnings)
        for index, message in enumerate(messages):
            walk.message(index, message)
        if walk.unanswered:
            warnings.append(no_result_warning(walk.unanswered))
        return Transcript(
            name=session_name(paths).removesuffix(".json"),
            files=tuple(paths),
            responses=(),
            results=(),  # no result event: a turn's answer is its last text (reader.answer)
            assistant_texts=tuple(AssistantText(text, turn, i >= walk.last_call.get(turn, -1), origin)
                                  for i, (turn, text, origin) in enumerate(walk.texts)),
            warnings=tuple(warnings),
            reader=self.name,
            tool_uses=tuple(walk.uses),
            tool_results=tuple(walk.results),
            turns=max(walk.turn, 1),
            threads=(None,) if walk.uses else (),
            cwd=_text(info.get("directory")),
        )


class _Walk:
    """The messages of one export, in order, into turns, texts, tool uses and results."""

    def __init__(self, path: str, lines: IdLines, options: ReadOptions, warnings: list):
        self.path, self.lines, self.options, self.warnings = path, lines, options, warnings
        self.texts: list = []  # (turn, text, origin)
        self.uses: list = []
        self.results: list = []
        self.last_call: dict = {}
        self.unanswered: list = []  # calls with no result yet (said once: walker.no_result_warning)
        self.turn = self.order = 0

    def message(self, index: int, message) -> None:
        info = message.get("info") if isinstance(message, dict) else None
        parts = message.get("parts") if isinstance(message, dict) else None
        if not isinstance(info, dict) or not isinstance(parts, list):
            self.warnings.append(InputWarning(self.path, 0, f"message {index} has no info and parts, skipped"))
            return
        role = info.get("role")
        if role == "user":
            if any(_typed(p) for p in parts):
                self.turn += 1
            return
        if role != "assistant":
            return
        where = info.get("path")
        cwd = _text(where.get("cwd")) if isinstance(where, dict) else None
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str) and not part.get("synthetic"):
                self.texts.append((self.turn, part["text"], self._origin(part.get("id"))))
            elif part.get("type") == "tool" and isinstance(part.get("tool"), str):
                self.tool(part, _text(info.get("id")), cwd)

    def tool(self, part: dict, message_id: Optional[str], cwd: Optional[str]) -> None:
        name, call_id = part["tool"], _text(part.get("callID")) or _text(part.get("id")) or ""
        origin = self._origin(call_id)
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        given = state.get("input") if isinstance(state.get("input"), dict) else {}
        fields = {field: given[key] for key, field in _INPUT.items() if isinstance(given.get(key), str)}
        if name in _WRITES and isinstance(given.get(_WRITES[name]), str):
            fields["written"] = given[_WRITES[name]]
        use = ToolUse(name=name, id=call_id, thread=None, origin=origin, order=self.order, key=call_id,
                      message=("opencode-message", message_id), assistant=True, **fields)
        self.uses.append(use)
        self.last_call[self.turn] = len(self.texts)
        status = state.get("status")
        if status not in ("completed", "error"):  # pending, running: the export was taken before it ended
            self.unanswered.append(use)
        elif status == "completed" and isinstance(state.get("output"), str) and self._kept(name):
            self.results.append(ToolResult(name=name, blocks=(state["output"],), origin=origin, use=use, cwd=cwd,
                                           tool_use_id=call_id, tool_use_origin=origin, order=self.order,
                                           turn=self.turn))
        self.order += 1

    def _kept(self, name: str) -> bool:
        keep = self.options.keep
        return keep is not None and keep(name)

    def _origin(self, key) -> Origin:
        return Origin(self.path, self.lines.of(key) if isinstance(key, str) and key else 0)


def _typed(part) -> bool:
    """A part the person wrote: non-blank text not added by opencode itself (`synthetic`)."""
    return (isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
            and part["text"].strip() != "" and not part.get("synthetic"))


def _text(value) -> Optional[str]:
    return value if isinstance(value, str) and value else None


def _raw(path: str, limit: int) -> bytes:
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise InputError(path, f"export larger than {limit:,} bytes (reader.max_line_bytes), not read")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputError(path, f"export larger than {limit:,} bytes (reader.max_line_bytes), not read")
    return data


def _parsed(path: str, data: bytes) -> dict:
    body = data.removeprefix(BOM)
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        try:
            doc = decode_line(body)  # invalid UTF-8 (opencode writes what the tool printed)
        except (ValueError, RecursionError):
            raise InputError(path, f"not JSON ({str(exc).split(':')[0]}), export not read", exc.lineno)
    except RecursionError:
        raise InputError(path, "not JSON (nested too deeply), export not read")
    if not isinstance(doc, dict) or not isinstance(doc.get("info"), dict):
        raise InputError(path, "not an opencode session export (no info object)")
    return doc


@hookimpl
def citeledger_register_readers(register):
    register(OpencodeReader)
