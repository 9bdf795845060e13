"""Gemini CLI headless runs: `gemini -p ... --output-format stream-json` (issue 29 item 5).

One JSON event per line, as google-gemini/gemini-cli's
`packages/core/src/output/types.ts` (at 04fbf50725b9) defines them: `init`
(`session_id`, `model`), `message` (`role` user | assistant, `content`, `delta`
for a chunk of a streamed reply), `tool_use` (`tool_name`, `tool_id`,
`parameters`), `tool_result` (`tool_id`, `status` success | error, `output`,
`error`), `error` (`severity`, `message`) and `result` (`status`, `stats`).
Unlike Claude's stream-json, `init` is its own `type` (Claude writes
`{"type": "system", "subtype": "init"}`), which is how a file is claimed.
Tool calls are read as the session documents' are (readers/gemini.py).
"""

from __future__ import annotations

from typing import Optional, Sequence

from citeledger.core import (
    AssistantText, ExploreAnswer, InputError, InputWarning, Origin, ReadOptions, ToolResult,
    Transcript, decode_line, hookimpl, is_explore, is_file, read_head, read_jsonl, reading,
)
from citeledger.readers.common import final_answers, quoted, session_name
from citeledger.readers.gemini import mcp_blocks, tool_uses_of
from citeledger.readers.gemini_tokens import result_event_of, stream_run_log
from citeledger.readers import whereabouts

_HEAD = 4096
_LONG_HEAD = 64 << 10
_SHAPE = 256  # where a cut line's `"type": "message"` would show
_BEFORE_INIT = 2  # lines a harness may write before the run's init event (its prompt, a banner)


def is_init_event(value) -> bool:
    """A headless Gemini run's first event: `{"type": "init", "session_id", "model"}` (no `subtype`)."""
    return (isinstance(value, dict) and value.get("type") == "init" and "subtype" not in value
            and isinstance(value.get("session_id"), str) and isinstance(value.get("model"), str))


def _init_after_harness_lines(head: bytes, complete: bool) -> Optional[bool]:
    """Whether the head's first event is `init` after at most `_BEFORE_INIT` harness lines; None
    when the head ends before that is known (a harness line longer than the head)."""
    lines = head.split(b"\n")
    seen = 0
    for raw in lines if complete else lines[:-1]:
        if not raw.strip():
            continue
        try:
            value = decode_line(raw)
        except (ValueError, RecursionError):
            value = None
        if is_init_event(value):
            return True
        seen += 1
        harness = value is None or (isinstance(value, dict) and value.get("type") == "message")
        if not harness or seen > _BEFORE_INIT:
            return False
    if complete or seen > _BEFORE_INIT:
        return False
    rest = lines[-1].lstrip()  # the line the head cut: read on only if it may be a harness's
    return None if not rest.startswith(b"{") or b'"message"' in rest[:_SHAPE] else False


class GeminiStreamReader:
    name = "gemini-stream"
    priority = 0  # claims by content
    agent = "gemini"

    def whereabouts(self, paths: Sequence[str]):
        return whereabouts.gemini_stream(paths)

    def claims(self, path: str) -> bool:
        """A .jsonl file whose first event is a Gemini `init` event, after at most `_BEFORE_INIT`
        lines a harness wrote first: a line that is not JSON, or Gemini's own `{"type": "message"}`
        shape (the prompt echoed; no Claude stream event has that type). The head every reader
        sniffs (4 KiB) decides; only a harness line longer than that reads on, to 64 KiB."""
        if not (path.endswith(".jsonl") and is_file(path)):
            return False
        for size in (_HEAD, _LONG_HEAD):
            try:
                head = read_head(path, size)
            except OSError:
                return False
            found = _init_after_harness_lines(head, complete=len(head) < size)
            if found is not None:
                return found
        return False

    def read(self, paths: Sequence[str], options: Optional[ReadOptions] = None) -> Transcript:
        options = ReadOptions() if options is None else options  # made per call: it asks the installed sources
        run = _Run(options)
        for path in paths:
            with reading(path, "a Gemini CLI stream-json log"):
                events = 0
                for line in read_jsonl(path, run.warnings, options.max_line_bytes):
                    events += run.feed(line.value, Origin(path, line.number))
                if events == 0:
                    raise InputError(path, "not a Gemini CLI stream-json log (no init/message/tool_use/tool_result events)")
        return run.transcript(paths, self.name)


class _Run:
    """What one headless run's events make, fed in order."""

    def __init__(self, options: ReadOptions):
        self.options = options
        self.warnings: list[InputWarning] = []
        self.uses: dict = {}
        self.responses: list = []
        self.results: list = []
        self.answers: list = []
        self.texts: list = []  # (turn, text, origin): one per run of assistant chunks
        self.last_call: dict = {}
        self.turn = 0
        self.order = 0
        self.chunk = False  # the last event was an assistant chunk (a `delta` continues it)
        self.prompted = False  # the last event was a user message (a harness's echo if `init` follows)
        self.ended: list = []  # the run's `result` events (readers/gemini_tokens.py)

    def feed(self, event, origin: Origin) -> int:
        if not isinstance(event, dict):
            return 0
        kind = event.get("type")
        if kind == "message":
            self._message(event, origin)
        elif kind == "tool_use":
            self._use(event, origin)
        elif kind == "tool_result":
            self._result(event, origin)
        elif kind == "result":
            self.ended.append(result_event_of(event, origin))
        elif kind == "init" and self.prompted:
            self.turn -= 1  # the prompt a harness wrote before the run starts: the run's own message follows
        elif kind not in ("init", "error"):
            return 0
        if kind != "message":
            self.chunk = self.prompted = False
        return 1

    def _message(self, event: dict, origin: Origin) -> None:
        content = event.get("content")
        text = content if isinstance(content, str) else ""
        if event.get("role") == "user":
            self.turn += 1
            self.chunk, self.prompted = False, True
            return
        if event.get("role") == "assistant":
            if self.chunk and event.get("delta") is True and self.texts:
                turn, before, first = self.texts[-1]
                self.texts[-1] = (turn, before + text, first)
            else:
                self.texts.append((self.turn, text, origin))
            self.chunk = True
        self.prompted = False

    def _use(self, event: dict, origin: Origin) -> None:
        name, tool_id = event.get("tool_name"), event.get("tool_id")
        if not isinstance(name, str):
            self.warnings.append(InputWarning(origin.file, origin.line, "tool_use without a tool_name, ignored"))
            return
        tool_id = tool_id if isinstance(tool_id, str) else str(tool_id)
        call = {"args": event.get("parameters")}
        # Each tool_use is its own message (the stream does not group them).
        self.uses[tool_id] = tool_uses_of(call, name, tool_id, origin, self.order, ("gemini-stream", self.order))
        self.order += 1
        self.last_call[self.turn] = len(self.texts)

    def _result(self, event: dict, origin: Origin) -> None:
        tool_id = event.get("tool_id")
        made = self.uses.get(tool_id) if isinstance(tool_id, str) else None
        if made is None:
            self.warnings.append(InputWarning(origin.file, origin.line, f"tool_result for unknown tool_id {quoted(tool_id)}"))
            return
        output = event.get("output")
        if event.get("status") != "success" or not isinstance(output, str):
            return  # a failed call is no retrieval (as `is_error`)
        name = made[0].name
        explore = is_explore(name, self.options.explore_tool)
        if not (explore or self.options.keep is not None and self.options.keep(name)):
            return
        blocks = mcp_blocks(output)
        result = ToolResult(name=name, blocks=blocks, origin=origin, use=made[0] if len(made) == 1 else None,
                            tool_use_id=tool_id, tool_use_origin=made[0].origin, order=self.order, turn=self.turn)
        (self.responses if explore else self.results).append(result)
        if explore:
            self.answers.append(ExploreAnswer(tool_id, blocks, origin))

    def transcript(self, paths, reader: str) -> Transcript:
        uses = [u for made in self.uses.values() for u in made]
        return Transcript(
            name=session_name(paths), files=tuple(paths), responses=tuple(self.responses),
            results=final_answers(self.texts),
            assistant_texts=tuple(AssistantText(text, t, i >= self.last_call.get(t, -1), origin)
                                  for i, (t, text, origin) in enumerate(self.texts)),
            warnings=tuple(self.warnings), reader=reader, turns=max(self.turn, 1),
            tool_uses=tuple(sorted(uses, key=lambda u: u.order)), tool_results=tuple(self.results),
            explore_answers=tuple(self.answers), threads=(None,) if uses else (),
            run_log=stream_run_log(self.ended),
        )


@hookimpl
def citeledger_register_readers(register):
    register(GeminiStreamReader)
