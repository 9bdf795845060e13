"""Regular expressions that run in linear time, with Python `re` + ASCII semantics.

Ruleset patterns are written in Python `re` syntax compiled with re.ASCII
(JavaScript's \\w, \\b, \\d). `compile_linear` parses such a pattern with re's
own parser and, when every construct has an exact RE2 equivalent, emits an
RE2 pattern from the parse tree: character classes are spelled out as code
point ranges (so \\s is re's [\\t\\n\\v\\f\\r ], `.` is "anything but \\n",
ASCII-only case folding), anchors are translated by their flags. RE2
(google-re2) guarantees time linear in the text. Constructs RE2 lacks
(lookaround, backreferences, possessive and atomic forms, a non-multiline `$`,
`\\B`), patterns that can match the empty string (re and RE2 step past an
empty match differently) and classes that tell lone surrogates apart from
other non-ASCII characters stay on `re`: the caller decides what to do with
those (rules/ refuses catastrophic shapes at load time).

Offsets are code points, as with `re`. RE2 reads UTF-8, which has no lone
surrogates; a text holding one is matched with each surrogate read as U+FFFD,
which every RE2-run class treats alike (checked at compile time), and groups
are sliced from the original text.
"""

from __future__ import annotations

import re

try:  # Python 3.11+
    from re import _constants as C, _parser as P
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C
    import sre_parse as P

import re2

from citeledger.core import matcher

MAX_CODE = 0x10FFFF
_SURROGATES = (0xD800, 0xDFFF)
_REPLACEMENT = 0xFFFD
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# RE2 refuses counted repetitions above 1000.
_MAX_COUNT = 1000
_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED
_NULL_SPAN = (-1, -1)
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.max_mem = 64 << 20  # room for large classes; RE2's own default is 8 MiB


class NotLinear(Exception):
    """The pattern uses something RE2 cannot run exactly as re does."""


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
    for lo, hi in spans:
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


_DIGIT = [(48, 57)]
_WORD = [(48, 57), (65, 90), (95, 95), (97, 122)]
_SPACE = [(9, 13), (32, 32)]
_CATEGORY = {
    C.CATEGORY_DIGIT: _DIGIT, C.CATEGORY_NOT_DIGIT: _complement(_DIGIT),
    C.CATEGORY_WORD: _WORD, C.CATEGORY_NOT_WORD: _complement(_WORD),
    C.CATEGORY_SPACE: _SPACE, C.CATEGORY_NOT_SPACE: _complement(_SPACE),
}


def _contains(spans, code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in spans)


def _class(spans) -> str:
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


class _Translator:
    def __init__(self, names: dict[int, str]):
        self.names = names

    def sequence(self, items, flags: int) -> str:
        return "".join(self.item(op, av, flags) for op, av in items)

    def chars(self, spans, flags: int) -> str:
        return _class(_fold(spans) if flags & re.IGNORECASE else spans)

    def item(self, op, av, flags: int) -> str:
        if op is C.LITERAL:
            return self.chars([(av, av)], flags)
        if op is C.NOT_LITERAL:
            own = _fold([(av, av)]) if flags & re.IGNORECASE else [(av, av)]
            return _class(_complement(own))
        if op is C.ANY:
            return _class([(0, MAX_CODE)] if flags & re.DOTALL else _complement([(10, 10)]))
        if op is C.IN:
            return self.charset(av, flags)
        if op is C.BRANCH:
            return "(?:" + "|".join(self.sequence(alt, flags) for alt in av[1]) + ")"
        if op is C.SUBPATTERN:
            group, add, remove, body = av
            inner = self.sequence(body, (flags | add) & ~remove)
            if group is None:
                return f"(?:{inner})"
            name = self.names.get(group)
            return f"(?P<{name}>{inner})" if name else f"({inner})"
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            low, high, body = av
            if low > _MAX_COUNT or (high != C.MAXREPEAT and high > _MAX_COUNT):
                raise NotLinear("a counted repetition above 1000")
            inner = self.sequence(body, flags)
            count = {(0, C.MAXREPEAT): "*", (1, C.MAXREPEAT): "+", (0, 1): "?"}.get((low, high))
            if count is None:
                count = f"{{{low},}}" if high == C.MAXREPEAT else f"{{{low}}}" if low == high else f"{{{low},{high}}}"
            return f"(?:{inner}){count}{'?' if op is C.MIN_REPEAT else ''}"
        if op is C.AT:
            return self.anchor(av, flags)
        raise NotLinear(f"{str(op).lower()} has no RE2 equivalent")

    def charset(self, items, flags: int) -> str:
        spans: list[tuple[int, int]] = []
        negate = False
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                spans.append((av, av))
            elif op is C.RANGE:
                spans.append(tuple(av))
            elif op is C.CATEGORY and av in _CATEGORY:
                spans.extend(_CATEGORY[av])
            else:
                raise NotLinear(f"class item {op}")
        spans = _fold(spans) if flags & re.IGNORECASE else _intervals(spans)
        return _class(_complement(spans) if negate else spans)

    def anchor(self, at, flags: int) -> str:
        if at is C.AT_BEGINNING:
            return "(?m:^)" if flags & re.MULTILINE else r"\A"
        if at is C.AT_BEGINNING_STRING:
            return r"\A"
        if at is C.AT_END and flags & re.MULTILINE:
            return "(?m:$)"
        if at is C.AT_END_STRING:
            return r"\z"
        if at is C.AT_BOUNDARY:
            return r"\b"  # RE2's \b is ASCII, as re.ASCII's
        raise NotLinear(f"anchor {at} has no exact RE2 equivalent")


def translate(text: str, flags: int = 0, single: bool = False) -> str:
    """The RE2 pattern that matches exactly what re.compile(text, re.ASCII | flags) does.

    re and RE2 step past an empty match differently in finditer, so a pattern
    that can match nothing is refused unless it is used for `single` matches.
    """
    parsed = P.parse(text, flags | re.ASCII)
    if parsed.getwidth()[0] == 0 and not single:
        raise NotLinear("can match the empty string")
    names = {index: name for name, index in parsed.state.groupdict.items()}
    return _Translator(names).sequence(parsed, parsed.state.flags)


class LinearPattern:
    """An RE2-run pattern with the part of re.Pattern's interface citeledger uses."""

    __slots__ = ("pattern", "flags", "groups", "groupindex", "single", "_re2", "_native")

    def __init__(self, text: str, flags: int, translated: str, single: bool = False):
        self.pattern = text
        self.flags = flags
        self.single = single
        self._re2 = re2.compile(translated, _RE2_OPTIONS)
        self.groups = self._re2.groups
        self.groupindex = dict(self._re2.groupindex)
        # A shipped citation pattern runs in C (core/_match.c) for finditer and
        # findall: the same matches as RE2's, without RE2's per-match call and
        # UTF-8 round trip. Only this exact text and flags: anything else, even
        # an equivalent spelling, stays on RE2.
        self._native = matcher.SHIPPED.get(text) if matcher.native is not None and flags == re.ASCII and not single else None

    def __reduce__(self):
        return (compile_linear, (self.pattern, self.flags & ~re.ASCII, True, self.single))

    def __eq__(self, other):
        return isinstance(other, LinearPattern) and (self.pattern, self.flags) == (other.pattern, other.flags)

    def __hash__(self):
        return hash((LinearPattern, self.pattern, self.flags))

    def __repr__(self):
        return f"LinearPattern({self.pattern!r})"

    def _readable(self, text: str) -> str | None:
        """The text RE2 reads, when it differs from `text` (lone surrogates)."""
        if text.isascii():
            return None
        try:
            text.encode("utf-8")
            return None
        except UnicodeEncodeError:
            return _LONE_SURROGATE.sub("\ufffd", text)

    def finditer(self, text: str):
        if self.single:
            raise TypeError("a pattern compiled for single matches has no finditer")
        if self._native is not None:  # code point spans straight from C
            return (_Match(_Spans(spans), text, self) for spans in matcher.native.finditer(self._native, text))
        if text.isascii():  # byte offsets are char offsets: RE2's spans as they come
            return (_Match(_Spans(spans), text, self) for spans in self._byte_spans(text.encode("ascii")))
        if self._readable(text) is None:  # UTF-8 as it is: byte spans, mapped to chars in one pass
            return iter(self._utf8_matches(text))
        readable = self._readable(text)
        return (_Match(m, text, self) for m in self._re2.finditer(text if readable is None else readable))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Every match's span, as [m.span() for m in finditer(text)] (not an re.Pattern method)."""
        if self._native is not None:  # no match objects at all
            return matcher.native.spans(self._native, text)
        return [m.span() for m in self.finditer(text)]

    def _byte_spans(self, data: bytes):
        """Every match's spans (byte offsets) in UTF-8 `data`, as google-re2's finditer finds them.

        The same loop as the wrapper's, without its per-match offset decoding,
        which costs more than the match on short texts (ASCII needs none).
        """
        match = self._re2._regexp.Match
        pos, end = 0, len(data)
        while True:
            spans = match(_UNANCHORED, data, pos, end)
            if spans[0] == _NULL_SPAN:
                return
            yield spans
            if pos == end:
                return
            if pos != spans[0][1]:
                pos = spans[0][1]
                continue
            pos += 1  # an empty match: step one character (past its continuation bytes)
            while pos < end and data[pos] & 0xC0 == 0x80:
                pos += 1

    def _utf8_matches(self, text: str) -> list:
        data = text.encode("utf-8")
        found = list(self._byte_spans(data))
        chars, last_byte, last_char = {0: 0}, 0, 0
        for offset in sorted({o for spans in found for span in spans for o in span if o > 0}):
            last_char += len(data[last_byte:offset].decode("utf-8"))
            chars[offset], last_byte = last_char, offset
        return [
            _Match(_Spans([(chars[a], chars[b]) if a != -1 else _NULL_SPAN for a, b in spans]), text, self)
            for spans in found
        ]

    def _one(self, method, text: str):
        readable = self._readable(text)
        m = method(text if readable is None else readable)
        return None if m is None else _Match(m, text, self)

    def search(self, text: str):
        return self._one(self._re2.search, text)

    def match(self, text: str):
        return self._one(self._re2.match, text)

    def fullmatch(self, text: str):
        return self._one(self._re2.fullmatch, text)

    def findall(self, text: str) -> list:
        if self._native is not None:
            return matcher.native.findall(self._native, text)
        if self.groups < 2 and not self.single:  # the hot path: no match objects, no char offsets
            g = self.groups
            if text.isascii():
                return [text[s[g][0]:s[g][1]] if s[g][0] != -1 else "" for s in self._byte_spans(text.encode("ascii"))]
            if self._readable(text) is None:
                data = text.encode("utf-8")
                return [data[s[g][0]:s[g][1]].decode("utf-8") if s[g][0] != -1 else "" for s in self._byte_spans(data)]
        if self.groups == 0:
            return [m.group() for m in self.finditer(text)]
        if self.groups == 1:
            return [m.group(1) or "" for m in self.finditer(text)]
        return [tuple(g or "" for g in m.groups()) for m in self.finditer(text)]

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        """Replace matches with a literal string (no group references)."""
        if "\\" in repl:
            raise ValueError("LinearPattern.sub takes a literal replacement")
        out, at, done = [], 0, 0
        for m in self.finditer(text):
            if count and done == count:
                break
            out.append(text[at : m.start()])
            out.append(repl)
            at = m.end()
            done += 1
        out.append(text[at:])
        return "".join(out)


class _Spans:
    """What _Match reads of a google-re2 match: its spans."""

    __slots__ = ("_spans",)

    def __init__(self, spans):
        self._spans = spans


class _Match:
    """re.Match's interface over an RE2 match, read from the original text.

    Holds the match's spans (code points) once: google-re2's own match
    object recounts the pattern's groups on every span() and takes no
    group names.
    """

    __slots__ = ("_spans", "_pattern", "string")

    def __init__(self, m, string: str, pattern: "LinearPattern"):
        spans = getattr(m, "_spans", None)  # google-re2 keeps them here; else ask
        self._spans = spans if spans is not None else [m.span(i) for i in range(pattern.groups + 1)]
        self._pattern, self.string = pattern, string

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
    """A LinearPattern when RE2 can run `text` exactly as re + ASCII does, else None.

    `strict` raises NotLinear instead of returning None. `single`: the pattern
    is used only for search/match/fullmatch, so it may match the empty string.
    """
    try:
        translated = translate(text, flags, single)
        return LinearPattern(text, flags | re.ASCII, translated, single)
    except NotLinear:
        if strict:
            raise
        return None
    except re2.error as exc:  # e.g. a program above RE2's memory budget
        if strict:
            raise NotLinear(f"RE2 refused it ({exc})") from None
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
