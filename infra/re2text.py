"""Ruleset patterns on RE2: RE2 syntax, linear time, RE2's memory budget.

A ruleset's (or `compare --key`'s) pattern is RE2 syntax (RE2's "Syntax"
wiki page), compiled by google-re2's public API, `re2.compile(pattern,
options)` with `max_mem` set: RE2 runs it in time linear in the text, by
construction, or refuses it, and `compile_linear` says why in one line
naming the pattern (`BadPattern`; `NotLinear` for a construct RE2 lacks or
a pattern beyond the budget).

One rewrite: RE2 has no lookbehind, and a line start that knows more line
ends than \\n is one: `(?<![^\\n\\r\\x{2028}\\x{2029}])` ("not after a
character other than a line end", JavaScript's multiline `^`). A pattern
that opens with such a line start (any set of \\n, \\r, U+2028, U+2029 that
holds \\n) is RE2's multiline `(?m)^` over that set: the rest of the pattern
is the program, and a match of it counts where the text has a line start
(the text's start, or after one of the set); one elsewhere is no match, and
the search goes on from the next character. That is exact (the line start is
zero-width, so the match from a line start is the same), and it searches
from what follows, a literal RE2 skips ahead to, where a leading `(?m)^`
would step through every byte.

Texts are str and offsets code points, as with `re`. RE2 reads UTF-8, which
has no lone surrogates: a text holding one is read with each as U+FFFD.
Groups are sliced from the original text.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import re

import re2

# RE2's memory budget per pattern: the compiled program may take two thirds,
# the rest is for the DFA that makes matching fast.
MAX_MEM = 64 << 20
# A larger program leaves the DFA too little of the budget: RE2 then falls back
# to its slower NFA per call and logs to stderr. Refused at compile time.
MAX_PROGRAM = 2_000
# What a refusal quotes of the pattern.
EXCERPT = 60

_OPTIONS = re2.Options()
_OPTIONS.max_mem = MAX_MEM
_OPTIONS.log_errors = False  # a refused pattern is reported by the caller, not on stderr

# The one lookbehind RE2 is given: a leading line start over \n and any of \r, U+2028, U+2029,
# written as RE2 escapes or as the characters themselves (a YAML double-quoted string).
_LINE_END = r"\\n|\\r|\\x\{2028\}|\\x\{2029\}|[\n\r\u2028\u2029]"
_LINE_START = re.compile(rf"\(\?<!\[\^((?:{_LINE_END})+)\]\)")
_LINE_END_CHARS = {"\\n": "\n", "\\r": "\r", "\\x{2028}": "\u2028", "\\x{2029}": "\u2029"}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# What RE2 says of a construct it lacks, and what that construct is.
_LACKS = (
    ("invalid perl operator: (?=", "a lookaround"), ("invalid perl operator: (?!", "a lookaround"),
    ("invalid perl operator: (?<=", "a lookaround"), ("invalid perl operator: (?<!", "a lookaround"),
    ("invalid perl operator: (?>", "an atomic group"),
    ("bad repetition operator: *+", "a possessive repetition"), ("bad repetition operator: ++", "a possessive repetition"),
    ("bad repetition operator: ?+", "a possessive repetition"),
)
# The contexts that decide an empty match: what precedes it and what follows it.
_SIDES = ("", "\n", "a", " ")
# What LinearPattern._bytes gives RE2: ASCII (byte offsets are code points), the
# text's exact UTF-8 encoding, or a stand-in with the text's code point count.
_ASCII, _EXACT, _STAND_IN = range(3)
# The length of a UTF-8 sequence by its first byte's high four bits.
_WIDTH = (1,) * 12 + (2, 2, 3, 4)


class BadPattern(ValueError):
    """RE2 refuses the pattern: the message names it and says why, in one line."""


class NotLinear(BadPattern):
    """The pattern asks for what RE2 lacks (it cannot run it in linear time) or exceeds the budget."""


def _excerpt(text: str) -> str:
    """The pattern as typed, quoted (repr where it holds a quote or a character that does not print), cut short."""
    shown = f"'{text}'" if text.isprintable() and "'" not in text else repr(text)
    return shown if len(shown) <= EXCERPT else shown[: EXCERPT - 1] + "…"


def _outside(text: str):
    """The pattern's characters outside classes, with escapes as two-character strings.

    RE2's lexical rules: a backslash escapes the next character, `\\Q...\\E`
    quotes, a class runs from `[` (`]` first is literal) to the next `]`
    that does not close a `[:name:]`.
    """
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            if text.startswith("\\Q", i):
                end = text.find("\\E", i + 2)
                i = n if end == -1 else end + 2
                continue
            yield text[i:i + 2]
            i += 2
        elif c == "[":
            i += 1
            i += text.startswith("^", i)
            i += text.startswith("]", i)
            while i < n and text[i] != "]":
                if text[i] == "\\":
                    i += 1
                elif text.startswith("[:", i) and text.find(":]", i + 2) != -1:
                    i = text.find(":]", i + 2) + 1
                i += 1
            i += 1
        else:
            yield c
            i += 1


def _has_top_level_bar(text: str) -> bool:
    depth = 0
    for token in _outside(text):
        depth += (token == "(") - (token == ")")
        if token == "|" and depth == 0:
            return True
    return False


def _program(text: str, whole: str):
    """RE2's compiled `text` (part of the pattern `whole`), or the reason RE2 refuses it."""
    if _LONE_SURROGATE.search(text):
        raise BadPattern(f"{_excerpt(whole)}: a lone surrogate, which RE2's UTF-8 cannot hold")
    if "\\C" in _outside(text):
        raise NotLinear(f"{_excerpt(whole)}: \\C (one byte) can split a character")
    try:
        program = re2.compile(text, _OPTIONS)
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        lacks = next((what for said, what in _LACKS if why.startswith(said)), None)
        if lacks is None and (re.fullmatch(r"invalid escape sequence: \\[1-9]", why)
                              or why.startswith("invalid perl operator: (?P") and "(?P=" in text):
            lacks = "a backreference"
        if lacks is None and why.startswith("invalid repetition size") and _above_1000(why):
            lacks = "a counted repetition above 1000"
        if lacks is not None:
            raise NotLinear(f"{_excerpt(whole)}: {lacks}, which RE2 does not run ({why})") from None
        raise BadPattern(f"{_excerpt(whole)}: {why}") from None
    if max(program.programsize, program.reverseprogramsize) > MAX_PROGRAM:
        raise NotLinear(f"{_excerpt(whole)}: its RE2 program is larger than {MAX_PROGRAM} instructions")
    return program


def _above_1000(fragment: str) -> bool:
    """Whether a count in RE2's fragment is above RE2's 1000 (no int() of a huge digit string)."""
    return any(len(d.lstrip("0")) > 4 or int(d) > 1000 for d in re.findall(r"\d+", fragment))


def _matches_empty(program) -> bool:
    """Whether the program can match the empty string somewhere: only assertions decide
    that, and each reads no more than the characters on either side (or a text end)."""
    return any(program.fullmatch((a + b).encode(), len(a), len(a)) is not None for a in _SIDES for b in _SIDES)


def _split_line_start(text: str) -> tuple[str, str]:
    """(the line ends of a leading line-start lookbehind, the pattern after it); ("", text) without one."""
    m = _LINE_START.match(text)
    if m is None:
        return "", text
    ends = "".join(_LINE_END_CHARS.get(e, e) for e in re.findall(_LINE_END, m.group(1)))
    if "\n" not in ends:
        return "", text  # not a line start: RE2 refuses the lookbehind
    return ends, text[m.end():]


class LinearPattern:
    """A pattern RE2 runs, with the part of re.Pattern's interface citeledger uses.

    `single`: used only for search/match/fullmatch, so it may match the empty
    string; one used by finditer may not (RE2's finditer steps past an empty
    match a byte at a time and reports one at the text's end twice).
    """

    __slots__ = ("pattern", "single", "groups", "groupindex", "anchored", "_re2", "_starts", "_hash")

    def __init__(self, text: str, single: bool = False):
        ends, rest = _split_line_start(text)
        if ends and _has_top_level_bar(rest):
            raise NotLinear(f"{_excerpt(text)}: a line start before a top-level |; put the alternatives in a group")
        self._re2 = _program(rest, text)
        if not single and _matches_empty(self._re2):
            raise NotLinear(f"{_excerpt(text)}: it can match the empty string")
        self.pattern, self.single = text, single
        # What the UTF-8 bytes before a line start end with (endswith takes a tuple), or None.
        self._starts = tuple(c.encode("utf-8") for c in ends) or None
        # Asserts a line or text start or end (\b and \B do not count): symbol's joined spans.
        self.anchored = bool(ends) or any(t in ("^", "$", "\\A", "\\z") for t in _outside(rest))
        self.groups = self._re2.groups
        self.groupindex = dict(self._re2.groupindex)
        # A ruleset's hash (memo keys) hashes its patterns again and again.
        self._hash = hash((LinearPattern, text, single))

    def __reduce__(self):
        return (compile_linear, (self.pattern, self.single))

    def __eq__(self, other):
        return isinstance(other, LinearPattern) and (self.pattern, self.single) == (other.pattern, other.single)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"LinearPattern({self.pattern!r})"

    def _bytes(self, text: str) -> tuple[bytes, int]:
        """(the UTF-8 bytes RE2 reads for `text`, _ASCII, _EXACT or _STAND_IN).

        re2's own str path converts every offset of every match with a call
        per offset; reading the bytes and converting each match's offsets
        from the previous one (`_Offsets`) is the same work once. _STAND_IN:
        lone surrogates read as U+FFFD (one code point each, as in `text`).
        """
        if text.isascii():
            return text.encode("ascii"), _ASCII
        try:
            return text.encode("utf-8"), _EXACT
        except UnicodeEncodeError:
            return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8"), _STAND_IN

    def _found(self, data: bytes, count: int, first: bool = False) -> list:
        """[span of group 0, ..., count - 1] of each match over `data` (the first only, if
        `first`), in byte offsets."""
        found = self._each(data, count)
        if first:
            m = next(found, None)
            return [] if m is None else [m]
        return list(found)

    def _each(self, data: bytes, count: int):
        """`_found`'s spans one match at a time: a caller converting them builds one list, not two
        (a 50 MB answer's matches are millions of small lists)."""
        groups = range(count)
        starts = self._starts
        if starts is None:
            for m in self._re2.finditer(data):
                yield list(map(m.span, groups))
            return
        pos = 0
        while True:
            for m in self._re2.finditer(data, pos):
                spans = list(map(m.span, groups))
                start = spans[0][0]
                if start == 0 or data.endswith(starts, 0, start):
                    yield spans
                else:  # not at a line start: search again from the next character
                    pos = start + _WIDTH[data[start] >> 4]
                    break
            else:
                return

    def _matches(self, text: str, count: int) -> list:
        """[span of group 0, ..., count - 1] of each match, in code points of `text`."""
        return list(self._matching(text, count))

    def _matching(self, text: str, count: int):
        """`_matches` one match at a time."""
        data, kind = self._bytes(text)
        found = self._each(data, count)
        return found if kind == _ASCII else _code_points_each(data, found)

    def _many(self) -> None:
        if self.single:
            raise TypeError("a pattern compiled for single matches has no finditer")

    def finditer(self, text: str):
        self._many()
        return (_Match(spans, text, self) for spans in self._matches(text, self.groups + 1))

    def byte_matches(self, text: str) -> tuple[bytes | None, list]:
        """Every match's group spans, 0 first, as finditer's (not an re.Pattern method), and what they index.

        (the UTF-8 encoding of `text`, spans in byte offsets of it) when `text`
        has an exact encoding that is not ASCII: a caller slices and decodes
        the bytes (a C loop) instead of converting each offset to code points.
        Otherwise (None, spans in code points of `text`).
        """
        self._many()
        data, kind = self._bytes(text)
        found = self._found(data, self.groups + 1)
        if kind == _EXACT:
            return data, found
        return None, found if kind == _ASCII else _code_points(data, found)

    def spans(self, text: str) -> "SpanList":
        """Every match's span, as [m.span() for m in finditer(text)] (not an re.Pattern method),
        held as two arrays of offsets (16 bytes a match, not a tuple of two ints: 120)."""
        self._many()
        found = SpanList()
        for spans in self._matching(text, 1):
            found.append(spans[0])
        return found

    def _one(self, text: str, how: str):
        """The first match: `how` is search, match (at the start) or fullmatch (all of the text).

        At the text's start a line start holds, so match and fullmatch run the program as it is.
        """
        data, kind = self._bytes(text)
        count = self.groups + 1
        if how == "search":
            found = self._found(data, count, first=True)
            spans = found[0] if found else None
        else:
            m = getattr(self._re2, how)(data)
            spans = None if m is None else [m.span(g) for g in range(count)]
        if spans is None:
            return None
        return _Match(spans if kind == _ASCII else _code_points(data, [spans])[0], text, self)

    def search(self, text: str):
        return self._one(text, "search")

    def match(self, text: str):
        return self._one(text, "match")

    def fullmatch(self, text: str):
        return self._one(text, "fullmatch")

    def findall(self, text: str) -> list:
        if self.groups == 0:
            self._many()
            return [text[a:b] for (a, b), in self._matching(text, 1)]
        if self.groups == 1:  # group 1's text, "" where it took no part; no match object each
            self._many()
            return ["" if a == -1 else text[a:b] for _, (a, b) in self._matching(text, 2)]
        return [tuple(g or "" for g in m.groups()) for m in self.finditer(text)]

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        """Replace matches with a literal string (no group references)."""
        if "\\" in repl:
            raise ValueError("LinearPattern.sub takes a literal replacement")
        out, at = [], 0
        for start, end in self.spans(text)[:count or None]:
            out.append(text[at:start])
            out.append(repl)
            at = end
        out.append(text[at:])
        return "".join(out)


class SpanList(Sequence):
    """(start, end) pairs, in order, in two arrays: what a list of them holds, at a seventh of the
    memory (an answer of 50 MB of two-character names is millions of matches)."""

    __slots__ = ("_starts", "_ends")

    def __init__(self, pairs=()):
        self._starts, self._ends = array("q"), array("q")
        for pair in pairs:
            self.append(pair)

    def append(self, pair) -> None:
        self._starts.append(pair[0])
        self._ends.append(pair[1])

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return SpanList(zip(self._starts[index], self._ends[index]))
        return (self._starts[index], self._ends[index])

    def __iter__(self):
        return zip(self._starts, self._ends)

    def __eq__(self, other) -> bool:
        return isinstance(other, (SpanList, list, tuple)) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"SpanList({list(self)!r})"

    def __reduce__(self):
        return (SpanList, (list(self),))


def _code_points(data: bytes, found) -> list:
    """`found`'s byte spans (LinearPattern._found) in code points of the text `data` encodes."""
    return list(_code_points_each(data, found))


def _code_points_each(data: bytes, found):
    """`_code_points` one match at a time."""
    at = _Offsets(data)
    for spans in found:
        start, end = spans[0]
        char_start = at(start)
        char_spans = [(char_start, at.within(start, char_start, end))]
        for a, b in spans[1:]:
            if a == -1:
                char_spans.append((-1, -1))
            else:
                ca = at.within(start, char_start, a)
                char_spans.append((ca, at.within(a, ca, b)))
        at.move(end, char_spans[0][1])
        yield char_spans


class _Offsets:
    """Byte offsets of UTF-8 `data` to code point offsets, for offsets met in increasing order.

    RE2 in UTF-8 mode reports offsets at character boundaries (\\C, one byte,
    is refused), so the code points between two offsets are the length of the
    bytes between them decoded.
    """

    __slots__ = ("data", "byte", "char")

    def __init__(self, data: bytes):
        self.data, self.byte, self.char = data, 0, 0

    def __call__(self, offset: int) -> int:
        """The code point offset of a byte `offset` at or after the last one moved to."""
        return self.within(self.byte, self.char, offset)

    def within(self, byte: int, char: int, offset: int) -> int:
        """The code point offset of `offset`, from a known pair (byte, char) at or before it."""
        return char + len(self.data[byte:offset].decode("utf-8")) if offset > byte else char

    def move(self, byte: int, char: int) -> None:
        self.byte, self.char = byte, char


class _Match:
    """re.Match's interface over an RE2 match, read from the original text (spans in code points)."""

    __slots__ = ("_spans", "_pattern", "string")

    def __init__(self, spans: list, string: str, pattern: LinearPattern):
        self._spans, self._pattern, self.string = spans, pattern, string

    def span(self, group=0):
        if group.__class__ is str:
            group = self._pattern.groupindex[group]
        return self._spans[group]

    def start(self, group=0):
        return self.span(group)[0]

    def end(self, group=0):
        return self.span(group)[1]

    def group(self, *groups):
        if len(groups) > 1:
            return tuple(self.group(g) for g in groups)
        start, end = self.span(groups[0]) if groups else self._spans[0]
        return None if start == -1 else self.string[start:end]

    def __getitem__(self, group):
        return self.group(group)

    def groups(self, default=None):
        values = [self.group(i) for i in range(1, self._pattern.groups + 1)]
        return tuple(default if v is None else v for v in values)


def compile_linear(text: str, single: bool = False) -> LinearPattern:
    """`text` (RE2 syntax, one leading line start rewritten) compiled by RE2, in budget.

    Raises BadPattern (NotLinear for what RE2 lacks or the budget) with a one-line
    reason naming the pattern. `single`: used only for search/match/fullmatch,
    so it may match the empty string.
    """
    return LinearPattern(text, single)


def needs_groups(count: int):
    """An attrs validator: the pattern has at least `count` capture groups.

    A rule that reads group N of each match learns of a missing group when
    the ruleset loads (a ruleset error), not mid-sweep (an IndexError).
    """

    def check(instance, attribute, pattern) -> None:
        if pattern.groups < count:
            have = f"{pattern.groups} capture group" + ("" if pattern.groups == 1 else "s")
            raise ValueError(f"{attribute.name} needs {count} capture group{'s' if count > 1 else ''} ({have})")

    return check
