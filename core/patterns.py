"""Regular expressions that run in linear time, with Python `re` + ASCII semantics.

Ruleset patterns are written in Python `re` syntax compiled with re.ASCII
(JavaScript's \\w, \\b, \\d). `translate` reads such a pattern with a small
parser of its own (re's parser is private and differs across 3.10-3.13) and
writes the RE2 pattern that matches exactly the same: character classes are
spelled out as code point ranges (so \\s is re's [\\t\\n\\v\\f\\r ], `.` is
"anything but \\n", ASCII-only case folding), anchors are translated by their
flags. RE2 (google-re2, public API only) guarantees time linear in the text,
and compiles with a memory budget. The parser keeps its own stack, so a
pattern's nesting depth cannot exhaust Python's recursion; a pattern nested
deeper than MAX_DEPTH is refused.

Constructs RE2 lacks (lookarounds, backreferences, possessive and atomic
forms, a non-multiline `$`), patterns that can match the empty string (re and
RE2 step past an empty match differently) and classes that tell lone
surrogates apart from other non-ASCII characters raise NotLinear: the caller
refuses them.

One lookbehind has an exact RE2 form: a line start, `(?<![^\\n\\r\\u2028\\u2029])`
(any set of line ends that includes \\n). RE2's multiline `^` knows only \\n,
so RE2 reads the text with the other line ends of the set turned into \\n;
that is exact when every class of the pattern treats the whole set alike
(checked at compile time).

Offsets are code points, as with `re`. RE2 reads UTF-8, which has no lone
surrogates; a text holding one is matched with each surrogate read as U+FFFD,
which every RE2-run class treats alike (checked at compile time). Groups are
always sliced from the original text.
"""

from __future__ import annotations

import re
import unicodedata

import attrs
import re2

MAX_CODE = 0x10FFFF
_SURROGATES = (0xD800, 0xDFFF)
_REPLACEMENT = 0xFFFD
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# RE2 refuses counted repetitions above 1000.
MAX_COUNT = 1000
# Groups nested deeper than this are refused (RE2's own parser stops at 1000).
MAX_DEPTH = 100
# RE2's memory budget per pattern: the compiled program may take two thirds,
# the rest is for the DFA that makes matching fast.
MAX_MEM = 64 << 20
# A larger program leaves the DFA too little of the budget: RE2 then falls back
# to its slower NFA per call and logs to stderr. Refused at compile time.
MAX_PROGRAM = 2_000
_LINE_ENDS = frozenset({0x0A, 0x0D, 0x2028, 0x2029})
# What LinearPattern._bytes gives RE2: ASCII (byte offsets are code points), the
# text's exact UTF-8 encoding, or a stand-in with the text's code point count.
_ASCII, _EXACT, _STAND_IN = range(3)
# The length of a UTF-8 sequence by its first byte's high four bits.
_WIDTH = (1,) * 12 + (2, 2, 3, 4)

_OPTIONS = re2.Options()
_OPTIONS.max_mem = MAX_MEM
_OPTIONS.log_errors = False  # a refused pattern is reported by the caller, not on stderr


class NotLinear(Exception):
    """The pattern uses something RE2 cannot run exactly as re does."""


class _Limit(NotLinear):
    """Past a limit checked before re.compile sees the pattern (re's parser
    recurses per group and reads counts of any length)."""


class _Invalid(Exception):
    """Syntax the parser does not know: re.compile says what is wrong."""


def _intervals(spans) -> list[tuple[int, int]]:
    """Sorted, merged closed intervals."""
    out: list[list[int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


def _complement(spans) -> list[tuple[int, int]]:
    out, nxt = [], 0
    for lo, hi in _intervals(spans):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE:
        out.append((nxt, MAX_CODE))
    return out


def _fold(spans) -> list[tuple[int, int]]:
    """Add the other ASCII case of every ASCII letter (re.ASCII | re.IGNORECASE)."""
    extra = []
    for lo, hi in spans:
        for a, b, shift in ((65, 90, 32), (97, 122, -32)):
            x, y = max(lo, a), min(hi, b)
            if x <= y:
                extra.append((x + shift, y + shift))
    return _intervals(list(spans) + extra)


def _contains(spans, code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in spans)


_DIGIT = [(48, 57)]
_WORD = [(48, 57), (65, 90), (95, 95), (97, 122)]
_SPACE = [(9, 13), (32, 32)]  # re.ASCII's \s includes \v, RE2's does not
_CATEGORY = {
    "d": _DIGIT, "D": _complement(_DIGIT),
    "w": _WORD, "W": _complement(_WORD),
    "s": _SPACE, "S": _complement(_SPACE),
}
_SIMPLE = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_HEX = "0123456789abcdefABCDEF"
_OCT = "01234567"
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "a": re.ASCII}


def _class_text(spans) -> str:
    """An RE2 class for a set of code points, without surrogates (UTF-8 has none).

    A set must treat every lone surrogate as it treats U+FFFD, which stands in
    for them in the text RE2 reads.
    """
    spans = _intervals(spans)
    covered = [(max(lo, _SURROGATES[0]), min(hi, _SURROGATES[1])) for lo, hi in spans]
    covered = sum(hi - lo + 1 for lo, hi in covered if lo <= hi)
    if covered not in (0, _SURROGATES[1] - _SURROGATES[0] + 1) or bool(covered) != _contains(spans, _REPLACEMENT):
        raise NotLinear("a class that tells lone surrogates from other characters")
    pieces = []
    for lo, hi in spans:
        for a, b in ((lo, min(hi, _SURROGATES[0] - 1)), (max(lo, _SURROGATES[1] + 1), hi)):
            if a <= b:
                pieces.append(f"\\x{{{a:x}}}" if a == b else f"\\x{{{a:x}}}-\\x{{{b:x}}}")
    if not pieces:
        raise NotLinear("an empty class")
    return "[" + "".join(pieces) + "]"


@attrs.frozen
class Translation:
    """An RE2 pattern and what RE2 must be told about the text it reads."""

    text: str  # the RE2 pattern
    min_width: int  # the shortest match's length
    anchored: bool  # asserts a line or string start or end, or looks behind (\b, \B do not count)
    line_ends: str  # line ends RE2 reads as "\n" (a line-start lookbehind's set beyond \n)
    # The pattern after a leading line-start lookbehind (its only one), "" when it has
    # none: matches of it where the text has a line start are the pattern's (`LinearPattern`).
    rest: str = ""


class _Frame:
    """One open group: its finished alternatives and the items of the current one."""

    __slots__ = ("opening", "flags", "alternatives", "items", "lookbehind")

    def __init__(self, opening: str, flags: int, lookbehind: bool = False):
        self.opening, self.flags, self.lookbehind = opening, flags, lookbehind
        self.alternatives: list[tuple[str, int]] = []
        self.items: list[list] = []  # [text, min width, class spans or None]

    def close_alternative(self) -> None:
        self.alternatives.append(("".join(i[0] for i in self.items), sum(i[1] for i in self.items)))
        self.items = []


class _Parser:
    """Python re syntax (3.10-3.13) to RE2, in one pass with an explicit stack."""

    def __init__(self, text: str, flags: int, single: bool):
        self.src, self.i, self.single = text, 0, single
        self.classes: list[list[tuple[int, int]]] = []  # every class emitted, for the line-end check
        self.anchored = False
        self.multiline_anchor = False
        self.non_boundary = False
        self.line_ends: frozenset | None = None
        self.line_starts: list[list] = []  # the item of each line-start lookbehind
        self.flags = flags

    # -------------------------------------------------------------- reading
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.src[j] if j < len(self.src) else ""

    def take(self) -> str:
        if self.i >= len(self.src):
            raise _Invalid("unexpected end")
        c = self.src[self.i]
        self.i += 1
        return c

    def digits(self, allowed: str, most: int) -> str:
        out = ""
        while len(out) < most and self.peek() and self.peek() in allowed:
            out += self.take()
        return out

    # -------------------------------------------------------------- pieces
    def chars(self, spans, flags: int) -> list:
        spans = _fold(spans) if flags & re.IGNORECASE else _intervals(spans)
        self.classes.append(spans)
        return [_class_text(spans), 1, spans]

    def code_escape(self, c: str, in_class: bool) -> int | None:
        """The code point of a character escape after `\\c`, or None if it is not one."""
        if c in _SIMPLE:
            return _SIMPLE[c]
        if c == "b" and in_class:
            return 8
        if c in "xuU":
            n = {"x": 2, "u": 4, "U": 8}[c]
            h = self.digits(_HEX, n)
            if len(h) != n:
                raise _Invalid("bad hex escape")
            code = int(h, 16)
            if code > MAX_CODE:
                raise _Invalid("bad escape")
            return code
        if c == "N":
            if self.take() != "{":
                raise _Invalid("bad \\N escape")
            end = self.src.find("}", self.i)
            if end == -1:
                raise _Invalid("bad \\N escape")
            name, self.i = self.src[self.i:end], end + 1
            try:
                return ord(unicodedata.lookup(name))
            except KeyError:
                raise _Invalid("bad character name") from None
        if c == "0" or (in_class and c in _OCT):
            code = int(c + self.digits(_OCT, 2), 8)
            if code > 0o377:
                raise _Invalid("octal escape out of range")
            return code
        if c in "123456789":
            if c in "0123" and self.peek() in _OCT and self.peek() and self.peek(1) and self.peek(1) in _OCT:
                code = int(c + self.take() + self.take(), 8)
                if code > 0o377:
                    raise _Invalid("octal escape out of range")
                return code
            raise NotLinear("a backreference has no RE2 equivalent")
        if c.isascii() and c.isalnum():
            raise _Invalid("bad escape")
        return ord(c)

    def class_item(self, flags: int):
        """One class item's code point, or a category's spans."""
        c = self.take()
        if c != "\\":
            return ord(c)
        c = self.take()
        if c in _CATEGORY:
            return _CATEGORY[c]
        code = self.code_escape(c, in_class=True)
        if code is None:
            raise _Invalid("bad class escape")
        return code

    def char_class(self, flags: int) -> list:
        negate = self.peek() == "^"
        if negate:
            self.i += 1
        spans: list[tuple[int, int]] = []
        first = True
        while True:
            if not self.peek():
                raise _Invalid("unterminated class")
            if self.peek() == "]" and not first:
                self.i += 1
                break
            first = False
            lo = self.class_item(flags)
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.i += 1
                hi = self.class_item(flags)
                if isinstance(lo, list) or isinstance(hi, list) or hi < lo:
                    raise _Invalid("bad range")
                spans.append((lo, hi))
            elif isinstance(lo, list):
                spans.extend(lo)
            else:
                spans.append((lo, lo))
        spans = _fold(spans) if flags & re.IGNORECASE else _intervals(spans)
        if negate:
            spans = _complement(spans)
        self.classes.append(spans)
        return [_class_text(spans), 1, spans]

    def anchor(self, kind: str, flags: int) -> list:
        if kind in "^$":
            self.anchored = True
            if flags & re.MULTILINE:
                self.multiline_anchor = True
                return [f"(?m:{kind})", 0, None]
            if kind == "$":
                raise NotLinear("re's $ also matches before a final newline; RE2 has no equivalent")
            return [r"\A", 0, None]
        if kind == "A":
            self.anchored = True
            return [r"\A", 0, None]
        if kind == "Z":
            self.anchored = True
            return [r"\z", 0, None]
        if kind == "B":
            self.non_boundary = True  # re's \B never matches an empty string; RE2's does
            return [r"\B", 0, None]
        return [r"\b", 0, None]  # RE2's \b is ASCII, as re.ASCII's

    def quantifier(self) -> tuple[int, int] | None:
        """(min, max) of a quantifier at the cursor (max -1: unbounded), consumed; else None."""
        c = self.peek()
        if c == "*":
            self.i += 1
            return 0, -1
        if c == "+":
            self.i += 1
            return 1, -1
        if c == "?":
            self.i += 1
            return 0, 1
        if c != "{" or self.peek(1) == "}":
            return None
        here = self.i
        self.i += 1
        lo = self.digits("0123456789", len(self.src))
        hi = lo
        if self.peek() == ",":
            self.i += 1
            hi = self.digits("0123456789", len(self.src))
        if self.peek() != "}":
            self.i = here
            return None
        self.i += 1
        # Digit strings are compared by length first: no int() of an unbounded string.
        for count in (lo, hi):
            if len(count.lstrip("0")) > 4 or count and int(count) > MAX_COUNT:
                raise _Limit(f"a counted repetition above {MAX_COUNT}")
        low = int(lo) if lo else 0
        high = int(hi) if hi else -1
        if high != -1 and high < low:
            raise _Invalid("min repeat greater than max repeat")
        return low, high

    # -------------------------------------------------------------- groups
    def group_opening(self, stack: list) -> _Frame | None:
        """After "(": the frame the group opens, or None for a flags group or comment."""
        flags = stack[-1].flags
        if self.peek() != "?":
            return _Frame("(", flags)
        self.i += 1
        c = self.take()
        if c == ":":
            return _Frame("(?:", flags)
        if c == "P":
            c = self.take()
            if c == "<":
                end = self.src.find(">", self.i)
                if end == -1:
                    raise _Invalid("missing >")
                name, self.i = self.src[self.i:end], end + 1
                if not name.isidentifier():
                    raise _Invalid("bad group name")
                return _Frame(f"(?P<{name}>", flags)
            if c == "=":
                raise NotLinear("a backreference has no RE2 equivalent")
            raise _Invalid("unknown extension")
        if c == "#":
            end = self.src.find(")", self.i)
            if end == -1:
                raise _Invalid("missing ), unterminated comment")
            self.i = end + 1
            return None
        if c == "<" and self.peek() == "!":
            self.i += 1
            self.anchored = True
            return _Frame("", flags, lookbehind=True)
        if c in "=!<":
            raise NotLinear("a lookaround has no RE2 equivalent")
        if c in "(>":
            raise NotLinear("conditional and atomic groups have no RE2 equivalent")
        self.i -= 1
        on = off = 0
        while self.peek() and self.peek() in "aiLmsux":
            on |= self.flag(self.take())
        if self.peek() == "-":
            self.i += 1
            while self.peek() and self.peek() in "imsx":
                off |= self.flag(self.take())
        c = self.take()
        if c == ":":
            return _Frame("(?:", (flags | on) & ~off)
        if c == ")" and not off and len(stack) == 1 and not stack[0].items and not stack[0].alternatives:
            stack[0].flags |= on  # global flags, at the start only
            return None
        raise _Invalid("bad flags")

    def flag(self, c: str) -> int:
        if c not in _FLAGS:
            raise NotLinear(f"the flag {c!r} is not supported in ruleset patterns")
        return _FLAGS[c]

    def close_lookbehind(self, frame: _Frame) -> list:
        """(?<![^ends]): a line start for a set of line ends that includes \\n."""
        items = frame.items
        if frame.alternatives or len(items) != 1 or items[0][2] is None:
            raise NotLinear("a lookbehind has no RE2 equivalent (except a line start)")
        ends = _complement(items[0][2])
        codes = {c for lo, hi in ends for c in range(lo, min(hi, lo + 4) + 1)}
        if len(codes) > 4 or not codes <= _LINE_ENDS or 0x0A not in codes:
            raise NotLinear("a lookbehind has no RE2 equivalent (except a line start)")
        self.classes.pop()
        codes = frozenset(codes)
        if self.line_ends is not None and self.line_ends != codes:
            raise NotLinear("line starts with different sets of line ends")
        self.line_ends = codes
        item = ["(?m:^)", 0, None]
        self.line_starts.append(item)
        return item

    def repeat(self, frame, c: str) -> None:
        """A quantifier (or a "{" that is itself) after the frame's last item."""
        self.i -= 1
        bounds = self.quantifier()
        if bounds is None:  # a "{" that starts no quantifier is itself
            self.i += 1
            frame.items.append(self.chars([(ord(c), ord(c))], frame.flags))
            return
        if not frame.items:
            raise _Invalid("nothing to repeat")
        item = frame.items[-1]
        lazy = ""
        if self.peek() == "?":
            self.i += 1
            lazy = "?"
        elif self.peek() == "+":
            raise NotLinear("possessive repetition has no RE2 equivalent")
        low, high = bounds
        count = {(0, -1): "*", (1, -1): "+", (0, 1): "?"}.get((low, high))
        if count is None:
            count = f"{{{low},}}" if high == -1 else f"{{{low}}}" if low == high else f"{{{low},{high}}}"
        frame.items[-1] = [f"(?:{item[0]}){count}{lazy}", low * item[1], None]

    # -------------------------------------------------------------- the pass
    def run(self) -> Translation:
        stack = [_Frame("", self.flags)]
        while self.i < len(self.src):
            frame = stack[-1]
            c = self.take()
            if c == "(":
                opened = self.group_opening(stack)
                if opened is not None:
                    if len(stack) > MAX_DEPTH:
                        raise _Limit(f"groups nested deeper than {MAX_DEPTH}")
                    stack.append(opened)
                continue
            if c == ")":
                if len(stack) == 1:
                    raise _Invalid("unbalanced parenthesis")
                stack.pop()
                if frame.lookbehind:
                    stack[-1].items.append(self.close_lookbehind(frame))
                    continue
                frame.close_alternative()
                body = "|".join(a[0] for a in frame.alternatives)
                width = min(a[1] for a in frame.alternatives)
                stack[-1].items.append([f"{frame.opening}{body})", width, None])
                continue
            if c == "|":
                frame.close_alternative()
                continue
            if c in "*+?{":
                self.repeat(frame, c)
                continue
            if c == "[":
                frame.items.append(self.char_class(frame.flags))
                continue
            if c == ".":
                spans = [(0, MAX_CODE)] if frame.flags & re.DOTALL else _complement([(10, 10)])
                self.classes.append(spans)
                frame.items.append([_class_text(spans), 1, spans])
                continue
            if c in "^$":
                frame.items.append(self.anchor(c, frame.flags))
                continue
            if c == "\\":
                e = self.take()
                if e in "AZbB":
                    frame.items.append(self.anchor(e, frame.flags))
                elif e in _CATEGORY:
                    frame.items.append(self.chars(_CATEGORY[e], frame.flags))
                else:
                    code = self.code_escape(e, in_class=False)
                    frame.items.append(self.chars([(code, code)], frame.flags))
                continue
            frame.items.append(self.chars([(ord(c), ord(c))], frame.flags))
        return self.finish(stack)

    def finish(self, stack) -> Translation:
        """The whole pattern read: its translation, or why it is refused."""
        if len(stack) != 1:
            raise _Invalid("missing ), unterminated subpattern")
        top = stack[0]
        # One alternative whose first item is the pattern's only line start (not
        # repeated: a quantifier replaces the item).
        leading = not top.alternatives and len(self.line_starts) == 1 and top.items and top.items[0] is self.line_starts[0]
        rest = "".join(i[0] for i in top.items[1:]) if leading else ""
        top.close_alternative()
        width = min(a[1] for a in top.alternatives)
        if width == 0 and not self.single:
            raise NotLinear("can match the empty string")
        if width == 0 and self.non_boundary:
            raise NotLinear("re's \\B never matches an empty text; RE2's does")
        ends = ""
        if self.line_ends is not None and self.line_ends != {0x0A}:
            if self.multiline_anchor:
                raise NotLinear("a line-start lookbehind beside a multiline anchor")
            for spans in self.classes:
                inside = {_contains(spans, c) for c in self.line_ends}
                if len(inside) > 1:
                    raise NotLinear("a class that tells the lookbehind's line ends apart")
            ends = "".join(chr(c) for c in sorted(self.line_ends - {0x0A}))
        body = "|".join(a[0] for a in top.alternatives)
        return Translation(body, width, self.anchored, ends, rest)


def translate(text: str, flags: int = 0, single: bool = False) -> Translation:
    """The RE2 form of re.compile(text, re.ASCII | flags), or NotLinear.

    re and RE2 step past an empty match differently in finditer, so a pattern
    that can match nothing is refused unless it is used for `single` matches.
    Raises _Invalid for syntax it does not read (the caller asks re why).
    """
    if flags & re.VERBOSE:
        raise NotLinear("verbose patterns are not supported")
    return _Parser(text, flags & (re.IGNORECASE | re.MULTILINE | re.DOTALL), single).run()


class LinearPattern:
    """An RE2-run pattern with the part of re.Pattern's interface citeledger uses.

    A pattern that opens with a line-start lookbehind (the explore header's)
    finds its matches with a second program, the pattern without it: that one
    starts with what follows (a literal, which RE2 skips ahead to, where a
    leading multiline `^` makes it step through every byte), and reads the
    text as it is (no line-end translation, no pass to look for one). A match
    of it where the text has a line start is the pattern's leftmost match (the
    lookbehind is zero-width, so the match from there is the same); one
    elsewhere is no match, and the search goes on from the next character.
    """

    __slots__ = ("pattern", "flags", "groups", "groupindex", "single", "anchored", "_re2", "_ends", "_end_chars",
                 "_rest", "_starts", "_hash")

    def __init__(self, text: str, flags: int, translation: Translation, single: bool = False):
        self.pattern = text
        self.flags = flags
        self.single = single
        self.anchored = translation.anchored
        self._end_chars = translation.line_ends
        self._ends = str.maketrans(dict.fromkeys(translation.line_ends, "\n")) if translation.line_ends else None
        self._re2 = re2.compile(translation.text, _OPTIONS)
        self._rest = re2.compile(translation.rest, _OPTIONS) if translation.rest and not single else None
        for program in (self._re2, self._rest):
            if program is not None and max(program.programsize, program.reverseprogramsize) > MAX_PROGRAM:
                raise NotLinear(f"its RE2 program is larger than {MAX_PROGRAM} instructions")
        # What the UTF-8 bytes before a line start end with (endswith takes a tuple).
        self._starts = tuple(c.encode("utf-8") for c in "\n" + translation.line_ends)
        self.groups = self._re2.groups
        self.groupindex = dict(self._re2.groupindex)
        # A ruleset's hash (memo keys) hashes its patterns again and again.
        self._hash = hash((LinearPattern, text, flags, single))

    def __reduce__(self):
        return (compile_linear, (self.pattern, self.flags & ~re.ASCII, True, self.single))

    def __eq__(self, other):
        return isinstance(other, LinearPattern) and (self.pattern, self.flags, self.single) == (other.pattern, other.flags, other.single)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"LinearPattern({self.pattern!r})"

    def _readable(self, text: str):
        """What RE2 reads for `text`: bytes when ASCII (byte offsets are code points), else a
        str of the same length with line ends mapped and lone surrogates as U+FFFD."""
        if self._ends is not None and any(c in text for c in self._end_chars):
            text = text.translate(self._ends)
        if text.isascii():
            return text.encode("ascii")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _LONE_SURROGATE.sub("\ufffd", text)
        return text

    def _bytes(self, text: str) -> tuple[bytes, int]:
        """(the UTF-8 bytes finditer's program reads for `text`, _ASCII, _EXACT or _STAND_IN).

        re2's own str path converts every offset of every match with a call
        per offset; reading the bytes and converting each match's offsets
        from the previous one (`_Offsets`) is the same work once. _EXACT:
        the bytes are `text`'s encoding; _STAND_IN: line ends mapped or lone
        surrogates read as U+FFFD (one code point each, as in `text`).
        """
        kind = _EXACT
        if self._rest is None and self._ends is not None and any(c in text for c in self._end_chars):
            text, kind = text.translate(self._ends), _STAND_IN
        if text.isascii():
            return text.encode("ascii"), _ASCII
        try:
            return text.encode("utf-8"), kind
        except UnicodeEncodeError:  # lone surrogates read as U+FFFD, one code point each
            return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8"), _STAND_IN

    def _found(self, data: bytes, count: int) -> list:
        """[span of group 0, ..., count - 1] of each of finditer's matches over `data` (bytes), in byte offsets."""
        groups = range(count)
        rest = self._rest
        if rest is None:
            return [list(map(m.span, groups)) for m in self._re2.finditer(data)]
        starts, pos, out = self._starts, 0, []
        while True:
            for m in rest.finditer(data, pos):
                spans = list(map(m.span, groups))
                start = spans[0][0]
                if start == 0 or data.endswith(starts, 0, start):
                    out.append(spans)
                else:  # not at a line start: search again from the next character
                    pos = start + _WIDTH[data[start] >> 4]
                    break
            else:
                return out

    def _matches(self, text: str, count: int) -> list:
        """[span of group 0, ..., count - 1] of each match, in code points of `text`."""
        data, kind = self._bytes(text)
        found = self._found(data, count)
        return found if kind == _ASCII else _code_points(data, found)

    def finditer(self, text: str):
        if self.single:
            raise TypeError("a pattern compiled for single matches has no finditer")
        return (_Match(spans, text, self) for spans in self._matches(text, self.groups + 1))

    def byte_matches(self, text: str) -> tuple[bytes | None, list]:
        """Every match's group spans, 0 first, as finditer's (not an re.Pattern method), and what they index.

        (the UTF-8 encoding of `text`, spans in byte offsets of it) when `text`
        has an exact encoding that is not ASCII: a caller slices and decodes
        the bytes (a C loop) instead of converting each offset to code points.
        Otherwise (None, spans in code points of `text`).
        """
        if self.single:
            raise TypeError("a pattern compiled for single matches has no finditer")
        data, kind = self._bytes(text)
        found = self._found(data, self.groups + 1)
        if kind == _EXACT:
            return data, found
        return None, found if kind == _ASCII else _code_points(data, found)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Every match's span, as [m.span() for m in finditer(text)] (not an re.Pattern method)."""
        if self.single:
            raise TypeError("a pattern compiled for single matches has no finditer")
        return [spans[0] for spans in self._matches(text, 1)]

    def _one(self, method, text: str):
        m = method(self._readable(text))
        return None if m is None else _Match([m.span(g) for g in range(self.groups + 1)], text, self)

    def search(self, text: str):
        return self._one(self._re2.search, text)

    def match(self, text: str):
        return self._one(self._re2.match, text)

    def fullmatch(self, text: str):
        return self._one(self._re2.fullmatch, text)

    def findall(self, text: str) -> list:
        if self.groups == 0:
            return [text[a:b] for a, b in self.spans(text)]
        if self.groups == 1:  # group 1's text, "" where it took no part; no match object each
            return ["" if a == -1 else text[a:b] for _, (a, b) in self._matches(text, 2)]
        return [tuple(g or "" for g in m.groups()) for m in self.finditer(text)]

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        """Replace matches with a literal string (no group references)."""
        if "\\" in repl:
            raise ValueError("LinearPattern.sub takes a literal replacement")
        out, at, done = [], 0, 0
        for start, end in self.spans(text):
            if count and done == count:
                break
            out.append(text[at:start])
            out.append(repl)
            at = end
            done += 1
        out.append(text[at:])
        return "".join(out)


def _code_points(data: bytes, found: list) -> list:
    """`found`'s byte spans (LinearPattern._found) in code points of the text `data` encodes."""
    at = _Offsets(data)
    out = []
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
        out.append(char_spans)
    return out


class _Offsets:
    """Byte offsets of UTF-8 `data` to code point offsets, for offsets met in increasing order.

    RE2 in UTF-8 mode reports offsets at character boundaries, so the code
    points between two offsets are the length of the bytes between them decoded.
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

    def groupdict(self, default=None):
        return {name: (default if self.group(name) is None else self.group(name)) for name in self._pattern.groupindex}


def compile_linear(text: str, flags: int = 0, strict: bool = False, single: bool = False):
    """A LinearPattern when RE2 can run `text` exactly as re + ASCII does, in budget, else None.

    `strict` raises NotLinear (saying why) instead of returning None, and
    re.error for a pattern that is not valid re syntax. `single`: the pattern
    is used only for search/match/fullmatch, so it may match the empty string.
    The pattern's depth and counts are checked before re.compile sees it.
    """
    try:
        try:
            translation = translate(text, flags, single)
            refused = None
        except _Invalid:
            translation, refused = None, None
        except _Limit:
            raise
        except NotLinear as exc:
            translation, refused = None, exc
        re.compile(text, flags | re.ASCII)  # re decides what is valid syntax, and says why not
        if translation is None:
            raise refused or NotLinear("syntax the translator does not read")
        try:
            return LinearPattern(text, flags | re.ASCII, translation, single)
        except re2.error as exc:  # e.g. a program above RE2's memory budget
            raise NotLinear(f"RE2 refused it ({exc})") from None
    except NotLinear:
        if strict:
            raise
        return None
    except re.error:
        if strict:
            raise
        return None


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
