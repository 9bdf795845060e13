"""Refuse regular expressions that can backtrack catastrophically.

Rulesets are untrusted and Python's `re` has no time limit, so a pattern such
as `(a+)+$` or `\\w+\\w+x` could hang a sweep on one long answer. `check` runs
at load time on the parsed pattern and refuses four shapes (docs/robustness.md):

1. repetition whose iterations can split the same text in several ways: a
   repeated body of varying length that can end with a character it can
   start with, or that can match nothing (`(a+)+`, `(a|aa)+`, `(\\w+\\s?)*`,
   `(a*)*`);
2. a repeated alternation whose branches can start with the same character
   (`(a|ab)+`, `(\\w|\\d)*`);
3. two unbounded repetitions in one sequence whose boundary can shift: the
   first can end with a character the second can start with, and nothing in
   between pins the boundary down (`\\w+\\w+`, `.*x.*`, `\\d+\\s*\\d+`);
4. a lookahead whose body has an unbounded repetition (`(?=\\w*!)`): it
   re-reads the rest of the text at every place it is tried.

Only patterns RE2 cannot run reach this check (core.patterns runs the rest
in linear time): those with lookaround, backreferences or the like.

Each is a conservative approximation: a refused pattern may be harmless, but
can always be rewritten with disjoint classes (`[^x]*x.*`). A pattern a
shipped ruleset uses verbatim is exempt (reviewed; `lines.yaml`'s fenced-block
pattern is quadratic only on a line of thousands of backticks).
Possessive and atomic forms are treated like ordinary ones.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

try:  # Python 3.11+
    from re import _constants as C, _parser as P
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C
    import sre_parse as P

import attrs
import yaml

NON_ASCII = 128  # every character above ASCII is one bucket
ALL = frozenset(range(129))
# A bounded repetition longer than this pumps like an unbounded one.
PUMP_LIMIT = 16

_DIGIT = frozenset(range(48, 58))
_SPACE = frozenset(b" \t\n\r\x0b\x0c")
_WORD = _DIGIT | frozenset(range(65, 91)) | frozenset(range(97, 123)) | {95}
_LINEBREAK = frozenset({10})
_CATEGORIES = {
    C.CATEGORY_DIGIT: _DIGIT, C.CATEGORY_NOT_DIGIT: ALL - _DIGIT,
    C.CATEGORY_SPACE: _SPACE, C.CATEGORY_NOT_SPACE: ALL - _SPACE,
    C.CATEGORY_WORD: _WORD, C.CATEGORY_NOT_WORD: ALL - _WORD,
    C.CATEGORY_LINEBREAK: _LINEBREAK, C.CATEGORY_NOT_LINEBREAK: ALL - _LINEBREAK,
}
_REPEATS = {C.MAX_REPEAT, C.MIN_REPEAT} | ({C.POSSESSIVE_REPEAT} if hasattr(C, "POSSESSIVE_REPEAT") else set())
_ZERO_WIDTH = {C.AT, C.ASSERT, C.ASSERT_NOT}


class UnsafePattern(re.error):
    """A pattern refused for its backtracking shape (an re.error, so callers
    that report bad patterns report this one too)."""


@attrs.frozen
class Info:
    """What a piece of pattern can match, in 129 character buckets."""

    lo: int  # shortest match length
    hi: int  # longest match length (capped at BIG)
    first: frozenset  # characters a match can start with
    last: frozenset  # characters a match can end with
    chars: frozenset  # every character a match can contain
    pumps: bool  # contains an unbounded (or long) repetition

    @property
    def nullable(self) -> bool:
        return self.lo == 0


BIG = 1 << 30
EMPTY = Info(0, 0, frozenset(), frozenset(), frozenset(), False)
ANYTHING = Info(0, BIG, ALL, ALL, ALL, False)


def check(pattern: re.Pattern | str, flags: int = 0) -> None:
    """Raise UnsafePattern if `pattern` has a catastrophic backtracking shape."""
    if not isinstance(pattern, (str, bytes)):  # re.Pattern or core's LinearPattern
        text, flags = pattern.pattern, pattern.flags
    else:
        text = pattern
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    _Analyser(text, bool(flags & re.IGNORECASE)).sequence(P.parse(text, flags), inside_repeat=False)


def _bucket(code: int) -> int:
    return code if code < 128 else NON_ASCII


def _fold(chars: frozenset) -> frozenset:
    letters = {c ^ 32 for c in chars if 65 <= c <= 90 or 97 <= c <= 122}
    return chars | letters


class _Analyser:
    def __init__(self, text: str, ignorecase: bool):
        self.text = text
        self.ignorecase = ignorecase

    def refuse(self, rule: str) -> None:
        raise UnsafePattern(f"refused, it can backtrack catastrophically: {rule}")

    def charset(self, items) -> frozenset:
        out: set = set()
        negate = False
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                out.add(_bucket(av))
            elif op is C.RANGE:
                lo, hi = av
                out.update(range(min(lo, 128), min(hi, 127) + 1))
                if hi >= 128:
                    out.add(NON_ASCII)
            elif op is C.CATEGORY:
                out |= _CATEGORIES.get(av, ALL)
            else:  # CHARSET, BIGCHARSET: not produced by the parser; assume anything
                out |= ALL
        result = frozenset(out)
        if self.ignorecase:
            result = _fold(result)
        # A negated class still reaches every non-ASCII character but its own.
        return (ALL - result) | {NON_ASCII} if negate else result

    def single(self, chars: frozenset) -> Info:
        return Info(1, 1, chars, chars, chars, False)

    def item(self, op, av, inside_repeat: bool) -> Info:
        if op is C.LITERAL:
            chars = frozenset({_bucket(av)})
            return self.single(_fold(chars) if self.ignorecase else chars)
        if op is C.NOT_LITERAL:
            return self.single(ALL - {_bucket(av)} | {NON_ASCII})
        if op is C.ANY:
            return self.single(ALL)
        if op is C.IN:
            return self.single(self.charset(av))
        if op in _ZERO_WIDTH:
            if op is not C.AT:  # a lookaround's body is matched too
                body = self.sequence(av[1], inside_repeat)
                # A lookahead re-reads the text after each place it is tried:
                # with an unbounded body that is quadratic over a search, and
                # exponential inside a repetition (`(?:a(?=\w*!))+x`).
                if av[0] == 1 and body.pumps:
                    self.refuse("a lookahead with an unbounded repetition inside, e.g. (?=\\w*!)")
            return EMPTY
        if op is C.SUBPATTERN:
            return self.sequence(av[-1], inside_repeat)
        if getattr(C, "ATOMIC_GROUP", None) is op:
            return self.sequence(av, inside_repeat)
        if op is C.BRANCH:
            return self.branch(av[1], inside_repeat)
        if op is C.GROUPREF_EXISTS:
            _, yes, no = av
            return self.branch([yes] + ([no] if no is not None else [P.SubPattern(yes.state)]), inside_repeat)
        if op in _REPEATS:
            return self.repeat(*av, inside_repeat=inside_repeat)
        return ANYTHING  # a backreference, or unknown: any text, possibly empty

    def branch(self, alternatives, inside_repeat: bool) -> Info:
        infos = [self.sequence(alt, inside_repeat) for alt in alternatives]
        if inside_repeat:
            seen: set = set()
            nullable = 0
            for info in infos:
                if seen & info.first or (info.nullable and nullable):
                    self.refuse("a repeated alternation whose branches can match the same text, e.g. (a|ab)+")
                seen |= info.first
                nullable += info.nullable
        return Info(
            min(i.lo for i in infos),
            max(i.hi for i in infos),
            frozenset().union(*(i.first for i in infos)),
            frozenset().union(*(i.last for i in infos)),
            frozenset().union(*(i.chars for i in infos)),
            any(i.pumps for i in infos),
        )

    def repeat(self, low, high, body, inside_repeat: bool) -> Info:
        pumping = high == C.MAXREPEAT or high > PUMP_LIMIT
        inner = self.sequence(body, inside_repeat or pumping)
        # Iterations of varying length that can end with what they start with
        # can cut the same text in exponentially many ways.
        if pumping and inner.lo != inner.hi and inner.first & inner.last:
            self.refuse("nested repetition whose iterations can split the same text in many ways, e.g. (a+)+ or (a|aa)+")
        if pumping and inner.nullable:
            self.refuse("a repetition of something that can match nothing, e.g. (a*)*")
        if high == 0:
            return EMPTY
        return Info(
            low * inner.lo, min(BIG, high * inner.hi), inner.first, inner.last, inner.chars, inner.pumps or pumping
        )

    def sequence(self, items, inside_repeat: bool) -> Info:
        infos = [(op, self.item(op, av, inside_repeat)) for op, av in items]
        self._adjacent(infos)
        first: set = set()
        for _, info in infos:
            first |= info.first
            if not info.nullable:
                break
        last: set = set()
        for _, info in reversed(infos):
            last |= info.last
            if not info.nullable:
                break
        return Info(
            min(BIG, sum(i.lo for _, i in infos)),
            min(BIG, sum(i.hi for _, i in infos)),
            frozenset(first),
            frozenset(last),
            frozenset().union(*(i.chars for _, i in infos)) if infos else frozenset(),
            any(i.pumps for _, i in infos),
        )

    def _adjacent(self, infos) -> None:
        """Two pumping items whose shared boundary nothing in between pins down."""
        pumping = [k for k, (_, info) in enumerate(infos) if info.pumps]
        for a in pumping:
            x = infos[a][1]
            for b in pumping:
                if b <= a:
                    continue
                y = infos[b][1]
                shared = x.chars & y.chars
                between = [infos[k][1] for k in range(a + 1, b)]
                if x.last & y.first and all(m.nullable or m.chars <= shared for m in between):
                    self.refuse(
                        "two repetitions in a row that can trade characters, e.g. \\w+\\w+ or .*x.* "
                        "(make their classes disjoint, e.g. [^x]*x.*)"
                    )


@functools.lru_cache(maxsize=1)
def shipped_patterns() -> frozenset:
    """Every string value of the shipped rulesets: reviewed and benchmarked,
    so a ruleset may reuse one verbatim (lines.yaml's quote fence pattern has an
    ambiguous boundary that only a line of thousands of backticks exercises)."""
    found: set = set()

    def walk(value):
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for entry in resources.files("citeledger.rulesets").iterdir():
        if entry.name.endswith(".yaml"):
            walk(yaml.safe_load(entry.read_text("utf-8")))
    return frozenset(found)


def check_ruleset_pattern(pattern: re.Pattern) -> None:
    """`check`, except for a pattern a shipped ruleset uses verbatim.

    The shipped rulesets are read only when a pattern is refused: nearly every
    pattern passes, and reading all 13 files cost a third of start-up."""
    try:
        check(pattern)
    except UnsafePattern:
        if pattern.pattern not in shipped_patterns():
            raise
