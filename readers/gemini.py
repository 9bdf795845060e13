"""Gemini CLI saved chat sessions: ~/.gemini/tmp/<project hash>/chats/session-*.json[l].

Format facts relied on, and the source files they come from, are in
docs/gemini.md. In short: releases up to at least 0.30 rewrite one JSON
document per session (`session-<time>-<id8>.json`: `sessionId`, `projectHash`,
..., `messages`); 0.61 appends JSONL records (`session-<time>-<id8>.jsonl`: a
metadata line, then message records, `{"$set": ...}` updates and
`{"$rewindTo": id}` records), where a message written again under its id
replaces the earlier copy in place. A message is `{"id", "type": "user" |
"gemini" | "info" | ..., "content", "toolCalls": [...]}`; a tool call is
`{"id", "name", "args", "result", "status"}` with its result inside it, so
a call and its output are one record here.
"""

from __future__ import annotations

import os
import re
from typing import Optional, Sequence

import orjson

from citeledger.core import (
    BOM, AssistantText, ExploreAnswer, InputError, InputWarning, Origin, ReadOptions, ToolResult, ToolUse, Transcript,
    decode_line, first_line, hookimpl, is_explore, is_file, open_regular, read_head, read_jsonl, reading,
)
from citeledger.readers.common import IdLines, final_answers, session_name
from citeledger.readers.gemini_tokens import request_of, run_log_of
from citeledger.readers.walker import MISSING, js_type
from citeledger.readers import whereabouts

# The CLI's file-reading tools and the input keys naming what they read, by
# release (docs/gemini.md): (ToolUse field, argument keys, first one present wins).
READ_FILE_KEYS = ("file_path", "absolute_path")  # read_file: 0.30/0.61, 0.1.x
DIR_KEYS = ("dir_path", "path")  # grep_search/glob/list_directory: 0.30/0.61, 0.1.x
MANY_KEYS = ("include", "paths")  # read_many_files: 0.61, 0.1.x
SEARCH_TOOLS = frozenset({"grep_search", "search_file_content", "glob", "list_directory"})
GLOB_CHARS = re.compile(r"[*?\[{]")

# MCP text blocks as 0.61 hands them to the model (tools/mcp-tool.js
# transformTextBlock -> utils/textUtils.js wrapUntrusted), joined by "\n"
# (utils/generateContentResponseUtilities.js convertToFunctionResponse).
_OPEN, _CLOSE = "<untrusted_context>\n", "\n</untrusted_context>"
_ESCAPED_CLOSE = "&lt;/untrusted_context&gt;"

_HEAD = 4096
_SNIFF_LINE = 1 << 20  # a metadata line is short; a longer first line opens no session we know
# A session document's first key in another key order (`jq -S` sorts them): one of its own.
_OBJECT_HEAD = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"(?:directories|kind|lastUpdated|messages|projectHash|startTime|summary)"\s*:')
_DOC_HEAD = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"sessionId"\s*:\s*"')


def is_metadata_record(value) -> bool:
    """A session log's metadata record: string `sessionId` and `projectHash`
    (chatRecordingService.js isPartialMetadataRecord), and no event `type`."""
    return (isinstance(value, dict) and "type" not in value
            and isinstance(value.get("sessionId"), str) and isinstance(value.get("projectHash"), str))


def mcp_blocks(output: str) -> tuple[str, ...]:
    """The MCP server's text blocks inside one functionResponse output.

    0.61 wraps each text block in <untrusted_context> tags (escaping a closing
    tag inside it) and joins the blocks with "\\n": undone exactly, so the
    sections are the tool's bytes, as for Claude and Codex. Unwrapped text
    (0.30) is one block.
    """
    if not (output.startswith(_OPEN) and output.endswith(_CLOSE)):
        return (output,)
    inner = output[len(_OPEN):-len(_CLOSE)]
    parts = inner.split(_CLOSE + "\n" + _OPEN)
    return tuple(p.replace(_ESCAPED_CLOSE, "</untrusted_context>") for p in parts)


def result_blocks(result) -> tuple[tuple[str, ...], bool]:
    """(text blocks, failed) of a tool call's `result` (a PartListUnion).

    The recorded shape is a list of parts whose first is
    `{"functionResponse": {"id", "name", "response": {"output": text}}}`, or
    `{"response": {"error": text}}` on failure; a bare string or `{"text"}`
    part is taken as text too.
    """
    if isinstance(result, str):
        return mcp_blocks(result), False
    if isinstance(result, dict):
        result = [result]
    if not isinstance(result, list):
        return (), False
    blocks: list[str] = []
    failed = False
    for part in result:
        if isinstance(part, str):
            blocks.extend(mcp_blocks(part))
        elif isinstance(part, dict):
            fr = part.get("functionResponse")
            if isinstance(fr, dict):
                response = fr.get("response")
                if isinstance(response, dict):
                    if "error" in response:
                        failed = True
                    output = response.get("output")
                    if isinstance(output, str):
                        blocks.extend(mcp_blocks(output))
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                blocks.extend(mcp_blocks(part["text"]))
    return tuple(blocks), failed


def content_text(content) -> str:
    """A message's text: a string, or its text parts joined (thought parts left out)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    return "".join(
        p if isinstance(p, str) else p["text"]
        for p in content
        if isinstance(p, str) or isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    )


def is_prompt(message: dict) -> bool:
    """A user message a person typed: not the tool responses 0.61 records as user messages."""
    content = message.get("content")
    if isinstance(content, list) and any(isinstance(p, dict) and "functionResponse" in p for p in content):
        return False
    return True


def _first(args: dict, keys: Sequence[str]):
    for key in keys:
        value = args.get(key)
        if value is not None:
            return value
    return None


def tool_uses_of(call: dict, name: str, call_id: str, origin: Origin, order: int, message=None) -> list[ToolUse]:
    """The ToolUse records of one tool call: one, or one per `include` entry of read_many_files."""
    args = call.get("args")
    if not isinstance(args, dict):
        args = {}

    def text(value) -> Optional[str]:
        return value if isinstance(value, str) else None

    # The model's calls (assistant), keyed by id; the calls of one message are concurrent (sufficiency).
    base = dict(name=name, id=call_id, thread=None, origin=origin, order=order, query=text(args.get("query")),
                key=call_id, message=message, assistant=True)
    if name == "read_file":
        return [ToolUse(**base, file_path=text(_first(args, READ_FILE_KEYS)))]
    if name in SEARCH_TOOLS:
        return [ToolUse(**base, path=text(_first(args, DIR_KEYS)), pattern=text(args.get("pattern")))]
    if name == "read_many_files":
        entries = _first(args, MANY_KEYS)
        entries = [entries] if isinstance(entries, str) else entries if isinstance(entries, list) else []
        uses = []
        for entry in entries:
            if not isinstance(entry, str):
                continue
            if GLOB_CHARS.search(entry):
                uses.append(ToolUse(**base, pattern=entry))
            else:
                uses.append(ToolUse(**base, file_path=entry))
        return uses or [ToolUse(**base)]
    return [ToolUse(**base)]


def _is_document(path: str, head: bytes) -> bool:
    """A session document: an object naming `sessionId` and `projectHash`, in the writer's
    key order (both at the head) or in another (`jq -S` puts them after `messages`: at the tail)."""
    if _DOC_HEAD.match(head):
        return b'"projectHash"' in head
    if not _OBJECT_HEAD.match(head):
        return False
    if b'"sessionId"' in head and b'"projectHash"' in head:
        return True
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        fh.seek(max(0, size - _HEAD))
        tail = fh.read(_HEAD)
    found = head + tail
    return b'"sessionId"' in found and b'"projectHash"' in found


class GeminiReader:
    name = "gemini"
    priority = 0  # claims only files whose head is a Gemini session's
    agent = "gemini"

    def whereabouts(self, paths: Sequence[str]):
        return whereabouts.gemini(paths)

    def homes(self, environ) -> list[str]:
        return whereabouts.gemini_homes(environ)

    def claims(self, path: str) -> bool:
        """A `.json` file opening with `{"sessionId": "...` (a legacy session document), or a
        `.jsonl` file whose first non-blank line is a metadata record (docs/gemini.md)."""
        is_doc = path.endswith(".json")
        if not ((is_doc or path.endswith(".jsonl")) and is_file(path)):
            return False
        try:
            head = read_head(path, _HEAD)
            if is_doc:
                return _is_document(path, head)
            return is_metadata_record(self._first_line(path, head))
        except (OSError, ValueError, RecursionError):
            return False

    @staticmethod
    def _first_line(path: str, head: bytes):
        raw = first_line(path, head, _HEAD, _SNIFF_LINE)
        return None if raw is None else decode_line(raw)  # decoded as the reading decodes it

    def read(self, paths: Sequence[str], options: Optional[ReadOptions] = None) -> Transcript:
        options = ReadOptions() if options is None else options  # made per call: it asks the installed sources
        warnings: list[InputWarning] = []
        messages: list[tuple[dict, Origin]] = []
        for path in paths:
            with reading(path, "a Gemini CLI session file"):
                if path.endswith(".json"):
                    messages.extend(self._document(path, options, warnings))
                else:
                    messages.extend(self._log(path, options, warnings))
        return self._transcript(paths, messages, warnings, options)

    # -- the two file shapes -------------------------------------------------

    def _document(self, path: str, options: ReadOptions, warnings: list) -> list[tuple[dict, Origin]]:
        """A legacy session: one JSON document, read whole (bounded by reader.max_line_bytes)."""
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > options.max_line_bytes:
                raise InputError(path, f"session document larger than {options.max_line_bytes:,} bytes "
                                       "(reader.max_line_bytes), not read")
            data = fh.read(options.max_line_bytes + 1)
        if len(data) > options.max_line_bytes:  # grew while being read
            raise InputError(path, f"session document larger than {options.max_line_bytes:,} bytes "
                                   "(reader.max_line_bytes), not read")
        body = data.removeprefix(BOM)
        if not body.strip():
            warnings.append(InputWarning(path, 0, "empty file"))
            return []
        try:
            doc = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            try:
                doc = decode_line(body)  # invalid UTF-8, which JavaScript's reader replaces
            except (ValueError, RecursionError):
                raise InputError(path, f"not JSON ({str(exc).split(':')[0]}), session not read", exc.lineno)
        except RecursionError:
            raise InputError(path, "not JSON (nested too deeply), session not read")
        if not isinstance(doc, dict) or not isinstance(doc.get("sessionId"), str):
            raise InputError(path, "not a Gemini CLI session (no sessionId)")
        listed = doc.get("messages", MISSING)
        if not isinstance(listed, list):
            raise InputError(path, f"session's messages is {js_type(listed)}, not a list")
        lines = IdLines(data)
        out = []
        for index, msg in enumerate(listed):
            if not (isinstance(msg, dict) and isinstance(msg.get("id"), str)):
                warnings.append(InputWarning(path, 0, f"message {index} is not a message record (no string id), skipped"))
                continue
            out.append((msg, Origin(path, lines.of(msg["id"]))))
        return out

    def _log(self, path: str, options: ReadOptions, warnings: list) -> list[tuple[dict, Origin]]:
        """A 0.61 session log, replayed as loadConversationRecord does (chatRecordingService.js)."""
        by_id: dict[str, tuple[dict, Origin]] = {}
        order: list[str] = []  # by_id's keys in order (a rewind removes a tail of them)
        position: dict[str, int] = {}
        metadata = lines = 0
        for line in read_jsonl(path, warnings, options.max_line_bytes):
            lines += 1
            record = line.value
            origin = Origin(path, line.number)
            if not isinstance(record, dict):
                warnings.append(InputWarning(path, line.number, f"record is {js_type(record)}, not an object, skipped"))
                continue
            if isinstance(record.get("$rewindTo"), str):
                # by_id's ids in order, with each one's index: a rewind cuts the tail in its length.
                cut = position.get(record["$rewindTo"], 0)
                for gone in order[cut:]:
                    del by_id[gone], position[gone]
                del order[cut:]
            elif isinstance(record.get("id"), str):
                if record["id"] not in by_id:
                    position[record["id"]] = len(order)
                    order.append(record["id"])
                by_id[record["id"]] = (record, origin)  # a message written again replaces it in place
            elif isinstance(record.get("$set"), dict):
                replaced = record["$set"].get("messages")
                if isinstance(replaced, list):  # a checkpoint: the whole message list again
                    by_id = {m["id"]: (m, origin) for m in replaced if isinstance(m, dict) and isinstance(m.get("id"), str)}
                    order = list(by_id)
                    position = {key: index for index, key in enumerate(order)}
            elif is_metadata_record(record):
                metadata += 1
                listed = record.get("messages")
                for m in listed if isinstance(listed, list) else ():  # a legacy record written on one line
                    if isinstance(m, dict) and isinstance(m.get("id"), str):
                        if m["id"] not in by_id:
                            position[m["id"]] = len(order)
                            order.append(m["id"])
                        by_id[m["id"]] = (m, origin)
            else:
                warnings.append(InputWarning(path, line.number, "not a session record (no id, $set, $rewindTo or sessionId), skipped"))
        if metadata == 0 and lines:
            raise InputError(path, "not a Gemini CLI session log (no sessionId/projectHash record)")
        if lines == 0:
            warnings.append(InputWarning(path, 0, "empty file"))
        return list(by_id.values())

    # -- messages to a Transcript ---------------------------------------------

    def _transcript(self, paths, messages, warnings, options) -> Transcript:
        responses: list[ToolResult] = []  # the explore tool's
        uses: list[ToolUse] = []
        tool_results: list[ToolResult] = []
        answers: list[ExploreAnswer] = []
        texts: list[tuple[int, str, Origin]] = []
        last_call: dict[int, int] = {}
        requests: list = []  # the model messages that logged their tokens (readers/gemini_tokens.py)
        turn = order = 0
        for msg, origin in messages:
            kind = msg.get("type")
            if kind == "user":
                if is_prompt(msg):
                    turn += 1
                continue
            if kind != "gemini":
                continue  # info / error / warning messages are the CLI's, not the model's
            request = request_of(msg.get("tokens"), origin)
            if request is not None:
                requests.append(request)
            texts.append((turn, content_text(msg.get("content")), origin))
            message_key = ("gemini-message", len(texts))  # one per message: its calls are concurrent
            calls = msg.get("toolCalls")
            if calls is None:
                continue
            if not isinstance(calls, list):
                warnings.append(InputWarning(origin.file, origin.line, f"toolCalls is {js_type(calls)}, not a list, ignored"))
                continue
            order = _read_calls(calls, origin, order, message_key, options, warnings,
                                (uses, responses, answers, tool_results), turn)
            if calls:
                last_call[turn] = len(texts)
        return Transcript(
            name=session_name(paths).removesuffix(".json"),
            files=tuple(paths),
            responses=tuple(responses),
            results=final_answers(texts),
            assistant_texts=tuple(
                AssistantText(text, t, i >= last_call.get(t, -1), origin) for i, (t, text, origin) in enumerate(texts)
            ),
            warnings=tuple(warnings),
            reader=self.name,
            tool_uses=tuple(uses),
            tool_results=tuple(tool_results),
            turns=max(turn, 1),
            explore_answers=tuple(answers),
            threads=(None,) if uses else (),
            run_log=run_log_of(requests),
        )


def _read_calls(calls: list, origin: Origin, order: int, message_key, options: ReadOptions, warnings: list,
                sink: tuple, turn: int = 0) -> int:
    """The tool calls of one `gemini` message into `sink` (uses, responses, explore answers,
    kept results); returns the order of the next call."""
    uses, responses, answers, tool_results = sink
    for index, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            warnings.append(InputWarning(origin.file, origin.line, f"tool call {index} has no name, ignored"))
            continue
        name = call["name"]
        call_id = call["id"] if isinstance(call.get("id"), str) else str(call.get("id"))
        made = tool_uses_of(call, name, call_id, origin, order, message_key)
        uses.extend(made)
        explore = is_explore(name, options.explore_tool)
        if explore or options.keep is not None and options.keep(name):  # the explore tool, or one a source reads
            blocks, failed = result_blocks(call.get("result"))
            if call.get("status") == "success" and not failed:
                # A read_many_files result naming several files has no one file:
                # the source charges it to (unknown) and says so.
                result = ToolResult(name=name, blocks=blocks, origin=origin, use=made[0] if len(made) == 1 else None,
                                    tool_use_id=call_id, tool_use_origin=origin, order=order, turn=turn)
                (responses if explore else tool_results).append(result)
                if explore:
                    answers.append(ExploreAnswer(call_id, blocks, origin))
        order += 1
    return order


@hookimpl
def citeledger_register_readers(register):
    register(GeminiReader)
