"""A Claude Code run's log beside its tool traffic (core/run_log.py), read as codegraph's
harness reads it (parse-run.mjs `parseSession`), in the walker's one pass over the events.

What counts: every `assistant` event with a message (a message id not seen
before is a request, its usage counted once; each content block adds its
characters: a text's, a thinking's, a tool use's JSON input and name, any
other block's JSON), every `user` event's content (a tool result's text, any
other block's text or JSON, a string prompt), `system` events (the init
event's tools, a compaction boundary) and `result` events. Subagent events of
a headless run are in it (one context as the harness counts it); an
interactive log's subagent files are not (each has its own window), but
for their usage: every event's logged usage is summed over every file, as
parse-session.mjs's TOKENS line sums it (`LoggedTokens`). A line
that begins with a byte order mark is not in it: the harness's JSON.parse
refuses such a line.
"""

from __future__ import annotations

import orjson

from citeledger.core import (
    MAX_EXACT as EXACT, as_double, in_range, out_of_range,
    Appended, Compaction, LoggedTokens, Origin, Request, ResultEvent, RunLog, ToolOutput, Usage, js_string, js_stringify, utf16_len,
)

# Claude Code's answer to a call of a tool the MCP server has not registered yet.
NO_SUCH_TOOL = "No such tool available"
COMPACTION_SUBTYPES = frozenset({"compact_boundary", "compaction"})


def js_number(value):
    """A logged count as the harness adds it (`x || 0`): a number as JavaScript holds it
    (infra/outside.py's `as_double`: an integral float in range as an int, so it prints as
    JavaScript prints it; 1e30 and Infinity stay floats), true as 1, anything else 0."""
    if type(value) is int or isinstance(value, float):
        return as_double(value)
    if value is True:
        return 1
    return 0


def optional_number(value):
    """A result event's number, None when it logs none (or no number)."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return js_number(value)


def usage_of(message: dict) -> Usage:
    u = message.get("usage")
    if not isinstance(u, dict):
        return Usage()
    given, read, made, out = (u.get("input_tokens"), u.get("cache_read_input_tokens"),
                              u.get("cache_creation_input_tokens"), u.get("output_tokens"))
    # js_number, its exact int case inline: this runs for every request of a corpus.
    return Usage(  # positional (input, cache read, cache creation, output): one per request of a corpus
        given if type(given) is int and -EXACT <= given <= EXACT else js_number(given),
        read if type(read) is int and -EXACT <= read <= EXACT else js_number(read),
        made if type(made) is int and -EXACT <= made <= EXACT else js_number(made),
        out if type(out) is int and -EXACT <= out <= EXACT else js_number(out),
    )


USAGE_FIELDS = ("output_tokens", "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def json_length(value) -> int:
    """`JSON.stringify(value).length` (UTF-16 units).

    orjson's JSON is as long as JavaScript's but for numbers that are floats
    (1500.0 is "1500" to JavaScript) and lone surrogates (orjson refuses them);
    key order changes no length. Those take js_stringify, the exact one.
    """
    if _has_float(value):
        return utf16_len(js_stringify(value))
    try:
        raw = orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return utf16_len(js_stringify(value))
    return len(raw) if raw.isascii() else utf16_len(raw.decode("utf-8"))


def _has_float(value) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            continue
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            return True
    return False


def block_chars(block) -> int:
    """What an assistant content block adds back to the prompt, in UTF-16 units."""
    if type(block) is dict:
        kind = block.get("type")
        if kind == "text" or kind == "thinking":
            text = block.get(kind)
            if type(text) is not str:
                return 0
            return len(text) if text.isascii() else utf16_len(text)
        if kind == "tool_use":
            given = block.get("input")
            name = block.get("name")
            return json_length({} if given is None else given) + (utf16_len(name) if type(name) is str else 0)
    return json_length(block)


class RunLogReader:
    """Collects one session's RunLog, an event at a time (EventWalker.feed calls `feed`).

    `names` is the walker's tool_use id key -> (name, origin) map, read when a
    result arrives (the name its id had then). `key_of(block, field)` is the
    walker's JavaScript Map key of an id.
    """

    def __init__(self, names: dict, key_of, content_blocks, truthy, warn=None, unparsed=None):
        self.names = names
        # ids a byte-order-marked line named -> what `names` held before it (None: nothing): that line
        # is no event to the harness (JSON.parse refuses it), so a result of its call is an unknown id's
        self.unparsed = unparsed if unparsed is not None else {}
        self.warn = warn  # warn(origin, message): a number out of range (infra/outside.py)
        self.key_of = key_of
        self.content_blocks = content_blocks
        self.truthy = truthy
        self.steps: list = []
        self.pending = 0  # characters appended since the last step
        self.seen: set = set()  # message id keys already a request
        self.init_tools = None
        self.results: list[ResultEvent] = []
        # Every event's logged usage summed (LoggedTokens): generated, fresh, cached.
        self.generated = self.fresh = self.cached = 0

    def _step(self, step) -> None:
        if self.pending:
            self.steps.append(Appended(self.pending))  # positional: one per step of a corpus
            self.pending = 0
        self.steps.append(step)

    def feed(self, kind, event: dict, origin: Origin, message_key, own_window: bool = True) -> None:
        """One event (an object, not on a BOM-led line); `message_key` is the walker's key of
        its message.id (None when falsy; an object's key is its own). An event of a file with
        a window of its own (an interactive log's subagent) adds its usage to the logged
        tokens and nothing else."""
        message = event.get("message")
        if type(message) is dict:
            usage = message.get("usage")
            if type(usage) is dict:  # a usage that is no object adds 0 to every sum: no call
                out, given, made, read = (usage.get("output_tokens"), usage.get("input_tokens"),
                                          usage.get("cache_creation_input_tokens"), usage.get("cache_read_input_tokens"))
                # parse-session.mjs's sums (`u.output_tokens || 0`, ...), js_number's exact int case inline
                if not (type(out) is int and type(given) is int and type(made) is int and type(read) is int
                        and -EXACT <= out <= EXACT and -EXACT <= given <= EXACT and -EXACT <= made <= EXACT
                        and -EXACT <= read <= EXACT):
                    out, given, made, read = self._numbers("usage", (out, given, made, read), USAGE_FIELDS, origin)
                self.generated += out
                self.fresh += given + made
                self.cached += read
        if not own_window:
            return
        if kind == "assistant":
            self._assistant(message, origin, message_key)
        elif kind == "user":
            self._user(message, origin)
        elif kind == "system":
            self._system(event, origin)
        elif kind == "result":
            duration, cost = optional_number(event.get("duration_ms")), optional_number(event.get("total_cost_usd"))
            if (duration is not None and not in_range(duration)) or (cost is not None and not in_range(cost)):
                self._numbers("", (duration, cost), ("duration_ms", "total_cost_usd"), origin, read=lambda v: v)
            self.results.append(ResultEvent(
                subtype=event.get("subtype") if type(event.get("subtype")) is str else None,
                duration_ms=duration, cost_usd=cost, origin=origin))

    def _numbers(self, where: str, values: tuple, fields: tuple, origin: Origin, read=js_number) -> tuple:
        """`values` read (js_number: None is 0), each out of range warned about (its file, line and field)."""
        read = tuple(map(read, values))
        for value, field in zip(read, fields):
            if value is not None and not in_range(value) and self.warn is not None:
                self.warn(origin, out_of_range(f"{where}.{field}" if where else field, value))
        return read

    def _assistant(self, message, origin: Origin, key) -> None:
        if type(message) is not dict:  # an object is truthy, even empty: only one is read
            return
        if key is not None and key not in self.seen:
            self.seen.add(key)
            self._step(Request(usage_of(message), origin))  # positional (usage, origin): one per request
        content = message.get("content")
        if type(content) is list:
            added = 0
            for block in content:
                # block_chars, its text case inline: this runs for every assistant block of a corpus
                text = block.get("text") if type(block) is dict and block.get("type") == "text" else None
                if type(text) is str:
                    added += len(text) if text.isascii() else utf16_len(text)
                else:
                    added += block_chars(block)
            self.pending += added
        elif type(content) is str:  # iterated character by character, each one's JSON
            for ch in content:
                self.pending += json_length(ch)

    def _user(self, message, origin: Origin) -> None:
        if type(message) is not dict:  # an object is truthy, even empty: only one is read
            return
        content = message.get("content")
        if type(content) is str:
            self.pending += utf16_len(content)
            return
        if type(content) is not list:
            return
        for block in content:
            if type(block) is dict and block.get("type") == "tool_result":
                self._tool_output(block, origin)
            else:
                self.pending += sum(utf16_len(t) for t in self.content_blocks([block]))

    def _tool_output(self, block: dict, origin: Origin) -> None:
        content = block.get("content")
        if type(content) is str:  # content_blocks' one-string case inline: most results of a corpus
            text = content
        else:
            pieces = self.content_blocks(content)
            text = pieces[0] if len(pieces) == 1 else "".join(pieces)
        chars = len(text) if text.isascii() else utf16_len(text)
        tool_id = block.get("tool_use_id")
        key = tool_id if type(tool_id) is str else self.key_of(block, "tool_use_id")  # key_of's common case inline
        known = self.names.get(key) if key is not None else None
        if self.unparsed and key in self.unparsed:
            known = self.unparsed[key]
        name = known[0] if known is not None and type(known[0]) is str else ""
        error = block.get("is_error")
        error = error is True or (error is not None and error is not False and self.truthy(error))
        # positional (name, key, chars, error, no_such_tool, origin): one per tool result of a corpus
        self._step(ToolOutput(name, key, chars, error, NO_SUCH_TOOL in text, origin))

    def _system(self, event: dict, origin: Origin) -> None:
        subtype = event.get("subtype")
        if subtype == "init":
            tools = event.get("tools")
            self.init_tools = tuple(t if type(t) is str else js_string(t) for t in tools) if type(tools) is list else ()
        elif type(subtype) is str and subtype in COMPACTION_SUBTYPES:
            self._step(Compaction(origin=origin))

    def run_log(self) -> RunLog:
        steps = self.steps + [Appended(chars=self.pending)] if self.pending else self.steps
        logged = LoggedTokens(generated=self.generated, fresh=self.fresh, cached=self.cached)
        return RunLog(context=tuple(steps), init_tools=self.init_tools, result_events=tuple(self.results),
                      logged_tokens=logged)
