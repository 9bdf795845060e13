"""Walk Claude Code events (stream-json and interactive share their shapes).

This is where the reference's reading rules live: which tool_results are
explore responses, how their text is assembled, which texts can be the answer.
"""

from __future__ import annotations

from typing import Hashable, Optional

from citeledger.readers.prompts import COMMAND, COMMAND_OUTPUT, PROMPT, prompt_kind
from citeledger.core import (
    API_ERROR, AssistantText, ExploreAnswer, InputWarning, Keys, Line, Origin, ResultText,
    ToolResult, ToolUse, Transcript, is_blank, is_explore, js_string, js_stringify,
)
from citeledger.readers.run_log import RunLogReader


_INPUT_FIELDS = ("query", "file_path", "path", "pattern", "command", "notebook_path", "output_mode", "subagent_type", "description", "task", "symbol")  # ToolUse's input fields, in its order

# Every key EventWalker.feed reads, per level (None: the value whole; a
# dict: an object pruned to its keys; [dict]: each element of a list so
# pruned). Lines are decoded keeping only these: a key read below but not
# named here is absent from every event, so reading a new key means adding
# it here (tests/readers/test_walker.py checks every fixture walks alike pruned and whole).
EVENT_KEYS = Keys({
    "type": None,
    "isMeta": None, "isSidechain": None, "isCompactSummary": None,
    "isApiErrorMessage": None,  # Claude Code's own error banner (never an answer under answer.never: api-error)
    "origin": None,  # a task-notification's {"kind": "task-notification"} (readers/prompts.py)
    "cwd": None,  # the working directory: an init event's, every interactive line's
    "subtype": None,  # a result event's (error_max_turns)  # which user events are prompts (readers/prompts.py)
    "result": None,
    "parent_tool_use_id": None,
    # The run log's (readers/run_log.py): the init event's tools, a compaction's
    # subtype, a result event's subtype, duration and cost.
    "subtype": None,
    "tools": None,
    "duration_ms": None,
    "total_cost_usd": None,
    "message": {
        "id": None,  # the message key (sufficiency)
        "model": None,  # "<synthetic>": a message the host wrote (walker._host_written)
        "usage": None,  # the run log's request sizes
        # Blocks whole: the run log measures any block's JSON, a tool use's whole
        # input; item_text and js_stringify need a result's whole content.
        "content": None,
    },
})

def js_truthy(value) -> bool:
    """JavaScript truthiness: unlike Python, [] and {} are true."""
    if isinstance(value, (list, dict)):
        return True
    if isinstance(value, float) and value != value:  # NaN
        return False
    return bool(value)


_ABSENT = ("absent",)


def _written(given: dict):
    """What a tool use writes to its file_path: a Write's `content`, an Edit's `new_string`."""
    for key in ("content", "new_string"):
        value = given.get(key)
        if type(value) is str:
            return value
    return None


def js_map_key(block: dict, field: str):
    """The key a JavaScript Map gives `block[field]` (a string is its own key), or None if it matches nothing.

    Map keys compare by SameValueZero: true is not 1, null is not a missing
    key, 1 is 1.0; an array or object is a key only by identity, so an id read
    from JSON never finds one. Python's dict would conflate True with 1.
    """
    value = block.get(field, _ABSENT)
    if type(value) is str:  # nearly every id: answered first, as itself (no other key is a str)
        return value
    if value is _ABSENT:
        return _ABSENT
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        try:
            return ("number", float(value))
        except OverflowError:  # JSON.parse reads a huge integer as Infinity
            return ("number", float("inf") if value > 0 else float("-inf"))
    if isinstance(value, str):
        return value
    return None


def item_text(item) -> str:
    """One tool_result content item's contribution to the response text (spec section 1).

    An item's `text`, when present and not null, goes through JavaScript's
    String(): 12345 -> "12345", ["a", "b"] -> "a,b", {} -> "[object Object]".
    """
    if isinstance(item, dict):
        text = item.get("text")
        if type(text) is str:  # nearly every item: answered first
            return text
        if text is not None:
            return js_string(text)
    if isinstance(item, str):
        return item
    return js_stringify(item)


def content_blocks(content) -> tuple[str, ...]:
    """A tool_result's text, one string per item: null/absent gives none, another value its JSON."""
    if isinstance(content, list):  # nearly every result: an item's text inline (item_text's common case)
        blocks = []
        for item in content:
            text = item.get("text") if type(item) is dict else None
            blocks.append(text if type(text) is str else item_text(item))
        return tuple(blocks)
    if isinstance(content, str):
        return (content,)
    if content is None or content is _MISSING:
        return ()
    return (js_stringify(content),)


def id_text(value) -> str:
    """A tool id that is no string, as text: a number as JavaScript writes it, so an integer
    past 64 bits reads alike whether decoded as an int or a double (infra/jsonl.Keys)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return js_string(value)
    return str(value)


def answer_block_text(block: dict) -> str:
    """A text block's part of an assistant event's text: its `text` when truthy, through String()."""
    text = block.get("text")
    if type(text) is str:
        return text
    return js_string(text) if js_truthy(text) else ""


class EventWalker:
    """Accumulates one session's explore responses and answer candidates.

    `headless` selects the reference's stream-json reader rules (spec section
    1): tool_use blocks only from `assistant` events with a truthy message,
    tool_result blocks only from `user` events. Otherwise (interactive logs)
    every event whose message.content is a list is walked, whatever its type.
    """

    def __init__(self, explore_tool: Optional[str], headless: bool = False, keep=None):
        # The explore tool (ReadOptions.explore_tool: a substring of its name; None, no tool is).
        self.explore_tool = explore_tool
        self.headless = headless
        # Whose other results to keep (ReadOptions.keep; None: none), and each tool use by key.
        self.keep = keep
        self.tool_results: list[ToolResult] = []
        self._uses: dict = {}
        self.names: dict[Hashable, object] = {}
        self.responses: list[ToolResult] = []  # the explore tool's
        self._kinds: dict[str, str] = {}  # tool name -> what its results are kept as (_kind)
        self.results: list[ResultText] = []
        self.warnings: list[InputWarning] = []
        self.bom_lines: list[Origin] = []
        # The tool_use ids a BOM-led line named, as the run log knew them before it (None: unknown):
        # the harness's JSON.parse refuses that line, so its results keep the name they had without it.
        self._log_names: dict = {}
        self._texts: list[tuple[str, int, Origin, str]] = []  # (text, turn, origin, kind)
        self._last_tool_use: dict[int, int] = {}  # turn -> index in _texts at its last tool_use
        self._answered: dict = {}  # tool_use key -> Origin of its first explore result
        # Results read before any call of their id: key -> (block, thread, origin, order, turn, cwd, warning index).
        self._early: dict = {}
        self._paired_early = False
        self._returned: set = set()  # keys of the kept tools' calls a result answered (no_result_warning)
        self.turn = 0
        self.tool_uses: list[ToolUse] = []  # every tool_use, any tool (read-after, diagnostics)
        self._order = -1  # position of the event being fed, in reading order
        self.prompts = 0  # main-thread user prompts (an interactive log's turns)
        self._command = False  # the last prompt counted was a slash command with no answer yet
        self.cwd: Optional[str] = None  # the working directory of the last event that named one
        self.base: Optional[str] = None  # the first one: the session's (Transcript.cwd)
        # The sufficiency block's reading (sufficiency.md "Input"): tool names
        # from assistant events only, explore answers from user events only.
        self._acted: dict[Hashable, object] = {}
        self.explore_answers: list[ExploreAnswer] = []
        self._threads: dict[Optional[str], None] = {}
        # What the host logged beside the tool traffic (readers/run_log.py).
        self.log = RunLogReader(self.names, js_map_key, content_blocks, js_truthy, self.warn, self._log_names)

    def warn(self, origin: Origin, message: str) -> None:
        self.warnings.append(InputWarning(origin.file, origin.line, message))

    def new_turn(self) -> None:
        self.turn += 1

    def _prompt(self, event: dict, content) -> None:
        """A main-thread user event that is no tool result: a turn if it is the
        user's own prompt. A stream-json run's are all turns (the reference's
        reading); an interactive log's are told apart (readers/prompts.py)."""
        kind = PROMPT if self.headless else prompt_kind(event, content)
        if kind == COMMAND_OUTPUT and self._command:  # the slash command before it was a local one
            self.prompts -= 1
            self.turn -= 1
        self._command = kind == COMMAND
        if kind in (PROMPT, COMMAND):
            self.prompts += 1
            self.new_turn()

    def feed(self, file: str, line: Line, parent_override: Optional[str] = None) -> object:
        """Walk one event; returns its `type` (None for a line that is no object).

        Written for the common shapes (every event of a corpus comes through
        here): decoded JSON holds exactly dicts, lists and strs, so the usual
        checks come first and the warnings' branches only when they can apply.
        """
        event = line.value
        origin = Origin(file, line.number)
        self._order += 1
        if line.bom:
            self.bom_lines.append(origin)
        if not isinstance(event, dict):
            return None
        if parent_override is not None:
            event = dict(event, parent_tool_use_id=parent_override)
        kind = event.get("type")
        cwd = event.get("cwd")
        if type(cwd) is str and cwd:
            self.cwd = cwd
            if self.base is None:
                self.base = cwd
        if kind == "result":
            self._result(event, origin)
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        parent = event.get("parent_tool_use_id")
        main_thread = parent is None
        # The message key once (the run log's requests, sufficiency's messages); content is a list
        # only in a dict message, so an assistant event walked below has its key here.
        message_key = _message_key(message, self._order) if kind == "assistant" and type(message) is dict else None
        if not line.bom:  # JSON.parse refuses a BOM; a subagent file has its own window (its usage only)
            self.log.feed(kind, event, origin, message_key, parent_override is None)  # own_window
        if not isinstance(content, list):  # not walked: a user's string prompt, or skipped
            self._unwalked(event, kind, message, content, main_thread, origin)
            return kind
        if kind == "user" and main_thread:  # _is_prompt of a list, inline
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    break
            else:
                self._prompt(event, content)
        elif kind == "assistant":
            self._command = False
        if kind == "assistant":
            self._threads.setdefault(parent if type(parent) is str else None)
        texts, called = self._blocks(content, kind, parent, origin, message_key)
        if kind == "assistant" and main_thread:
            if texts:
                self._texts.append(("".join(texts), self.turn, origin, API_ERROR if _host_written(event, message) else ""))
            if called:
                # Marked after this event's own text: a message's text precedes its tool_use.
                self._last_tool_use[self.turn] = len(self._texts)
        return kind

    def _result(self, event: dict, origin: Origin) -> None:
        result = event.get("result", _MISSING)
        if isinstance(result, str):
            self.results.append(ResultText(result, origin, max(self.turn, 1), segment=True))
        elif event.get("subtype") == "error_max_turns":  # a run cut by --max-turns writes no result text
            self.warn(origin, "the run ended at max turns (result subtype error_max_turns) with no result text: "
                              "the answer scored is its last main-thread assistant text (a progress note)")
        else:  # the reference ignores it silently: no answer from this event
            self.warn(origin, f"result event's result is {js_type(result)}, not a string: not an answer")

    def _unwalked(self, event: dict, kind, message, content, main_thread: bool, origin: Origin) -> None:
        """An event whose content is no list of blocks: a user's string prompt, or skipped."""
        if kind == "user" and main_thread and _is_prompt(content):
            self._prompt(event, content)
        # Skipped as the reference skips them, but never silently.
        if kind in ("assistant", "user"):
            if not isinstance(message, dict):
                self.warn(origin, f"{kind} event without a message object ({js_type(event.get('message', _MISSING))}), skipped")
            elif not (kind == "user" and isinstance(content, str)):
                self.warn(origin, f"{kind} event's message.content is {js_type(message.get('content', _MISSING))}, not a list of blocks, skipped")

    def _blocks(self, content: list, kind, parent, origin: Origin, message_key) -> tuple[list, bool]:
        """Each content block of a walked event: (its text blocks' texts, whether it called a tool)."""
        texts = []
        called = False
        # The headless reader's event rules (see the class docstring).
        takes_uses = not self.headless or kind == "assistant"
        takes_results = not self.headless or kind == "user"
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                self.warn(origin, f"content block {index} is {js_type(block)}, not an object, ignored")
                continue
            btype = block.get("type")
            if btype == "tool_use":
                if not takes_uses:
                    self.warn(origin, f"tool_use in a {_kind_name(kind)} event, ignored (a headless run's come from assistant events)")
                    continue
                tool_id = block.get("id", _ABSENT)
                key = tool_id if type(tool_id) is str else js_map_key(block, "id")  # js_map_key, its common case inline
                name = block.get("name")
                if key is not None:
                    if self.bom_lines and self.bom_lines[-1] is origin:  # a line the harness cannot parse
                        self._log_names.setdefault(key, self.names.get(key))
                    elif self._log_names:
                        self._log_names.pop(key, None)
                    if key in self.names:
                        first = self.names[key][1]
                        self.warn(origin, f"tool_use id {block.get('id')!r} used again (first at {first.file}:{first.line}); "
                                          f"its later results belong to this {name!r}")
                    self.names[key] = (name, origin)
                self._record_tool_use(block, name, tool_id, parent, origin, key, message_key, kind == "assistant")
                called = True
            elif btype == "tool_result":
                if not takes_results:
                    self.warn(origin, f"tool_result in a {_kind_name(kind)} event, ignored (a headless run's come from user events)")
                    continue
                self._tool_result(block, parent, origin, kind == "user")
            elif btype == "text":
                text = block.get("text")
                texts.append(text if type(text) is str else answer_block_text(block))
        return texts, called

    def _record_tool_use(self, block: dict, name, tool_id, parent, origin: Origin, key, message_key, assistant: bool) -> None:
        """One ToolUse (`tool_id` is block["id"], _ABSENT when missing)."""
        given = block.get("input")
        if not isinstance(given, dict):  # a defined outcome, not a warning: every field absent
            given = _NO_INPUT
        if assistant:
            self._acted[key] = name
        # _INPUT_FIELDS spelled out: this runs for every tool_use of a corpus.
        query, file_path, path, pattern = given.get("query"), given.get("file_path"), given.get("path"), given.get("pattern")
        command, notebook_path, output_mode = given.get("command"), given.get("notebook_path"), given.get("output_mode")
        subagent_type, description, task, symbol = (
            given.get("subagent_type"), given.get("description"), given.get("task"), given.get("symbol"))
        use = ToolUse(
            name if type(name) is str else "",
            tool_id if type(tool_id) is str else id_text(None if tool_id is _ABSENT else tool_id),
            parent if type(parent) is str else None, origin, self._order,
            query if type(query) is str else None, file_path if type(file_path) is str else None,
            path if type(path) is str else None, pattern if type(pattern) is str else None,
            key, message_key, assistant,
            command if type(command) is str else None, notebook_path if type(notebook_path) is str else None,
            output_mode if type(output_mode) is str else None,
            subagent_type if type(subagent_type) is str else None, description if type(description) is str else None,
            task if type(task) is str else None, symbol if type(symbol) is str else None,
            _written(given) if file_path is not None else None,
        )
        self.tool_uses.append(use)
        if key is not None:
            self._uses[key] = use
            if self._early:
                self._pair_early(key, name, use)

    def _tool_result(self, block: dict, parent, origin: Origin, user: bool = False) -> None:
        tool_id = block.get("tool_use_id")
        key = tool_id if type(tool_id) is str else js_map_key(block, "tool_use_id")
        if user and key is not None:
            self._explore_answer(block, key, origin)
        known = self.names.get(key) if key is not None else None
        if known is None:
            if key is not None:  # its call may come later (Claude Code writes some so): paired then, by id
                self._early.setdefault(key, []).append((block, parent, origin, self._order, self.turn, self.cwd,
                                                        len(self.warnings)))
            self.warnings.append(
                InputWarning(origin.file, origin.line, f"tool_result for unknown tool_use id {tool_id!r}")
            )
            return
        name, use_origin = known
        kind = self._kinds.get(name) if type(name) is str else None  # _kind, its common case inline
        if kind is None:
            kind = self._kind(name)
        if kind is _NOT_KEPT:  # no source reads this tool
            return
        self._returned.add(key)
        explore = kind is _EXPLORE
        error = block.get("is_error")
        if error is not None and error is not False and js_truthy(error):  # a failed call is no retrieval
            return
        content = block.get("content", _MISSING)
        if explore:
            self._explore_checks(content, tool_id, key, origin)
        result = ToolResult(
            name=name, blocks=content_blocks(content), origin=origin, use=self._uses.get(key), cwd=self.cwd,
            tool_use_id=tool_id if type(tool_id) is str else id_text(tool_id),
            parent_tool_use_id=parent if isinstance(parent, str) else None,
            tool_use_origin=use_origin, order=self._order, turn=self.turn,
        )
        (self.responses if explore else self.tool_results).append(result)

    def _pair_early(self, key, name, use: ToolUse) -> None:
        """The results read before the call `use` that they answer (by id): a tool a source reads
        (not the explore tool: the reference drops those, as before) is paired now, and its
        warning says so (issue 41, H4)."""
        early = self._early.pop(key, ())
        if not early or self._kind(name) is not _KEPT:
            return
        self._returned.add(key)
        for block, parent, origin, order, turn, cwd, warned in early:
            self.warnings[warned] = InputWarning(
                origin.file, origin.line, f"tool_result for tool_use id {use.id!r} written before its call "
                                          f"(line {use.origin.line}): paired by id")
            error = block.get("is_error")
            if error is not None and error is not False and js_truthy(error):
                continue
            self.tool_results.append(ToolResult(
                name=name, blocks=content_blocks(block.get("content", _MISSING)), origin=origin, use=use, cwd=cwd,
                tool_use_id=use.id, parent_tool_use_id=parent if isinstance(parent, str) else None,
                tool_use_origin=use.origin, order=order, turn=turn,
            ))
            self._paired_early = True

    def _kind(self, name) -> str:
        """Whether a tool's results are kept, and as what: the explore tool's (`_EXPLORE`), a tool
        some source reads (`_KEPT`) or neither; worked out once per tool name (`_kinds`)."""
        if is_explore(name, self.explore_tool):
            kind = _EXPLORE
        else:
            kind = _KEPT if self.keep is not None and self.keep(name) else _NOT_KEPT
        if type(name) is str:
            self._kinds[name] = kind
        return kind

    def _explore_checks(self, content, tool_id, key, origin: Origin) -> None:
        """What the reference reads of an explore result that a warning must say: a second
        result for one call (counted again), content that is no text."""
        first = self._answered.get(key)
        if first is None:
            self._answered[key] = origin
        else:
            self.warn(origin, f"another explore result for tool_use id {tool_id!r} (first at {first.file}:{first.line}); "
                              "counted again, as the reference does")
        if type(content) is list:
            return
        if content is None or content is _MISSING:
            self.warn(origin, f"explore tool_result content is {js_type(content)}, counted as empty")
        elif not isinstance(content, str):
            self.warn(origin, f"explore tool_result content is {js_type(content)}, not text, counted as its JSON")

    def _explore_answer(self, block: dict, key, origin: Origin) -> None:
        """The sufficiency block's response text of `key` (sufficiency.md "Threads and actions")."""
        name = self._acted.get(key)
        kind = self._kinds.get(name) if type(name) is str else None  # _kind, its common case inline
        if (self._kind(name) if kind is None else kind) is not _EXPLORE:
            return
        error = block.get("is_error")
        if error is not None and error is not False and js_truthy(error):
            return
        self.explore_answers.append(ExploreAnswer(key, content_blocks(block.get("content", _MISSING)), origin))

    def transcript(self, name: str, files: tuple[str, ...], reader: str, turns: int = 1) -> Transcript:
        texts = []
        for index, (text, turn, origin, kind) in enumerate(self._texts):
            after = index >= self._last_tool_use.get(turn, -1)
            texts.append(AssistantText(text, turn, after, origin, kind))
        unanswered = [u for u in self.tool_uses if u.assistant and u.key is not None and u.key not in self._returned
                      and self._kind(u.name) is _KEPT]
        warnings = self.warnings + ([no_result_warning(unanswered)] if unanswered else [])
        return Transcript(
            name=name,
            files=files,
            responses=tuple(self.responses),
            results=tuple(self.results),
            assistant_texts=tuple(texts),
            warnings=tuple(warnings),
            bom_lines=tuple(self.bom_lines),
            reader=reader,
            tool_uses=tuple(self.tool_uses),
            turns=max(turns, 1),
            explore_answers=tuple(self.explore_answers),
            threads=tuple(self._threads),
            tool_results=tuple(sorted(self.tool_results, key=_by_order) if self._paired_early else self.tool_results),
            run_log=self.log.run_log(),
            cwd=self.base,
        )


_MISSING = object()
MISSING = _MISSING
# What a tool's results are kept as (EventWalker._kind).
_EXPLORE, _KEPT, _NOT_KEPT = "explore", "kept", "not kept"  # a key absent from a decoded object (js_type says "missing")
_NO_INPUT: dict = {}


def no_result_warning(uses) -> InputWarning:
    """The one warning of a session's calls of tools a source reads that no result answers (the
    log ends before they returned, or lost them): said once, naming the first."""
    first = uses[0]
    more = f" and {len(uses) - 1} more" if len(uses) > 1 else ""
    return InputWarning(first.origin.file, first.origin.line,
                        f"{first.name} call {first.id!r}{more} with no result (the log ends before it returned, "
                        "or lost it): not counted")


def _message_key(message: dict, order: int):
    """An assistant event's message.id as the key JavaScript's `===` compares, or None when falsy.

    Strings and numbers compare by value (1 is not "1"); an object or array
    only equals itself, so only the blocks of its own event share it.
    """
    if "id" not in message or not js_truthy(message["id"]):
        return None
    key = js_map_key(message, "id")
    return ("object", order) if key is None else key


def js_type(value) -> str:
    """How a warning names a JSON value's type."""
    if value is _MISSING:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _kind_name(kind) -> str:
    return repr(kind) if isinstance(kind, str) else f"untyped ({js_type(kind)})"


def _by_order(result: ToolResult) -> int:
    return result.order


def _host_written(event: dict, message: dict) -> bool:
    """An assistant event Claude Code wrote itself, not the model: an API error or rate-limit
    banner (`"isApiErrorMessage": true`, `"model": "<synthetic>"`; issue 41, H5)."""
    return event.get("isApiErrorMessage") is True or message.get("model") == "<synthetic>"


def _is_prompt(content) -> bool:
    """A user event that is a person's prompt, not a tool_result carrier."""
    if isinstance(content, str):
        return not is_blank(content)
    if isinstance(content, list):
        # A loop, not any(<generator>): this runs for every main-thread user event.
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                return False
        return True
    return False
