"""The C citation matcher (core/_match.c) against re + ASCII and against RE2.

re.compile(pattern, re.ASCII) is the reference; RE2 (core.patterns without
the C matcher) is checked to agree with it, and the C matcher with both:
the same matches (leftmost-first, non-overlapping), spans in code points and
groups, on text rich in the characters the patterns care about, non-ASCII
characters, astral ones and lone surrogates. Hostile texts of 1 MB, on which
re backtracks for minutes, are compared with RE2 only (timing is bench's:
bench/linear.py).
"""

from __future__ import annotations

import importlib
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.core import matcher
from citeledger.core.kernel import kernel_name
from citeledger.core.patterns import compile_linear
from citeledger.rules.loader import load_ruleset

_match = importlib.import_module("citeledger.core._match")  # built by pip install -e . (setup.py)

SHIPPED = list(matcher.SHIPPED)
CHARS = list("/.@+-_$`\n") + list("aZq09") + [" ", "\\", "é", "—", "\ufffd", "\ud800", "\udfff", "😀", "\U0010ffff"]
PIECES = ["a/", "b.js", ".c", "x.", "/", "..", "@s/p", "a-b", "+x", "1.2", "`", "`ab`", "$v", "é.js", "a.B1_c", "\n"]
text = st.one_of(
    st.text(alphabet=st.sampled_from(CHARS), max_size=60),
    st.lists(st.sampled_from(PIECES + CHARS), max_size=30).map("".join),
    st.text(max_size=40),
)


PURE = os.environ.get("CITELEDGER_PURE", "") not in ("", "0")


class c_only:
    """The C matcher for a shipped pattern, called directly (so CITELEDGER_PURE=1 tests it too)."""

    def __init__(self, pattern: str):
        self.id, self.pattern = matcher.SHIPPED[pattern], pattern
        self.groups = re.compile(pattern).groups
        used = compile_linear(pattern)._native
        assert used == (None if PURE else self.id), "LinearPattern hands it to C exactly when built and not pure"

    def finditer(self, s: str):
        return [_Found(spans, s) for spans in _match.finditer(self.id, s)]

    def findall(self, s: str):
        return _match.findall(self.id, s)

    def spans(self, s: str):
        return _match.spans(self.id, s)


class _Found:
    def __init__(self, spans, s):
        self._spans, self._s = spans, s

    def span(self, group=0):
        return self._spans[group]

    def group(self, group=0):
        a, b = self._spans[group]
        return self._s[a:b]

    def groups(self):
        return tuple(self.group(g) for g in range(1, len(self._spans)))


def re2_only(pattern: str):
    p = compile_linear(pattern)
    p._native = None
    return p


def matches(pattern, s: str):
    return [(m.span(), m.group(), m.groups()) for m in pattern.finditer(s)]


def spans(pattern, s: str):
    return [tuple(m.span(g) for g in range(pattern.groups + 1)) for m in pattern.finditer(s)]


def test_the_matcher_is_built_where_a_compiler_exists():
    if PURE:
        assert matcher.native is None
        assert kernel_name() == "pure Python (CITELEDGER_PURE=1)"
    else:
        assert matcher.native is _match
        assert "_match" in kernel_name().split("{")[1].split("}")[0]


def test_the_shipped_rulesets_patterns_run_in_c():
    default, corrected = load_ruleset("default"), load_ruleset("corrected")
    path, symbol = default.options_for("path"), default.options_for("symbol")
    for p in (path.with_directory, path.basename, symbol.code_span, symbol.token, corrected.options_for("path").basename):
        assert p._native == (None if PURE else matcher.SHIPPED[p.pattern]), p.pattern
    assert set(SHIPPED) == {
        path.with_directory.pattern, path.basename.pattern, symbol.code_span.pattern, symbol.token.pattern,
        corrected.options_for("path").basename.pattern,
    }


def test_only_the_exact_text_and_flags_run_in_c():
    assert compile_linear(r"[A-Za-z_$][\w$]*", re.IGNORECASE)._native is None
    assert compile_linear(r"[A-Za-z_$][\w$]*", re.MULTILINE)._native is None
    assert compile_linear(r"[a-zA-Z_$][\w$]*")._native is None  # the same language, another spelling
    assert compile_linear(r"`([^`\n]+)`", single=True)._native is None


@pytest.mark.parametrize("pattern", SHIPPED)
@settings(max_examples=400)
@given(s=text)
def test_c_matches_as_re_and_re2_do(pattern, s):
    reference = re.compile(pattern, re.ASCII)
    ours, theirs = c_only(pattern), re2_only(pattern)
    expected = matches(reference, s)
    assert matches(theirs, s) == expected
    assert matches(ours, s) == expected
    assert spans(ours, s) == spans(theirs, s)
    assert ours.findall(s) == reference.findall(s) == theirs.findall(s)
    assert ours.spans(s) == theirs.spans(s) == [m.span() for m in reference.finditer(s)]


HAND = [
    # with_directory: each group takes a whole run up to "/"; the final part
    # takes its run's LAST "." + letter; a failed final part gives up a group.
    (0, "see lib/router/index.js.map now", ["lib/router/index.js.map"]),
    (0, "a/b.c/d.1", ["a/b.c"]),  # the last segment has no "." + letter: one group fewer
    (0, "a/b.c/d.1/", ["a/b.c"]),
    (0, "a//b.js x/.js /y.js", []),
    (0, "a/b.x-y.z/", ["a/b.x-y.z"]),
    (0, "p/a.b-c.d-e", ["p/a.b-c.d"]),
    (0, "@scope/pkg+x/file.min.js", ["@scope/pkg+x/file.min.js"]),
    (0, "a/b.js/c.ts", ["a/b.js/c.ts"]),
    (0, "é/a.js b/é.js c/a.é", []),
    # basename: \b before a word character, or after one before @ + -.
    (1, "a.js-b.c", ["a.js", "-b.c"]),
    (1, "@@b.js", ["b.js"]),
    (1, "x@b.js", ["x@b.js"]),
    (1, "fastify.d.ts", ["fastify.d"]),
    (1, "a.1b.c", ["1b.c"]),
    # corrected basename: the last dotted run that starts with a letter.
    (2, "fastify.d.ts context_1.16_test.go", ["fastify.d.ts", "context_1.16_test.go"]),
    (2, "a.b.1.2", ["a.b"]),
    (2, "a.b-c.1", ["a.b"]),
    (2, "-.-.b", []),
    # code spans: empty, across a newline, unclosed.
    (3, "``a` `b\nc` `d`", ["a", " "]),
    (3, "`", []),
    # tokens
    (4, "9abc $x_1 é_a", ["abc", "$x_1", "_a"]),
]


@pytest.mark.parametrize("which, s, expected", HAND)
def test_hand_worked_matches(which, s, expected):
    pattern = SHIPPED[which]
    assert matcher.SHIPPED[pattern] == which
    assert re.findall(pattern, s, re.ASCII) == expected
    assert c_only(pattern).findall(s) == expected


MB = 1 << 20


def hostile(unit: str, tail: str = "") -> str:
    return (unit * (MB // len(unit) + 1))[: MB - len(tail)] + tail


HOSTILE = [
    hostile("a"), hostile("a/"), hostile("a/", "b.js"), hostile("a.", "/"), hostile("a.b/"), hostile("a.1/"),
    hostile("ab-"), hostile("a.b-c.1"), hostile("."), hostile("a."), hostile("-.a"), hostile("`"), hostile("`a"),
    hostile("`a\n"), hostile("a/" * 1000 + "x.js "), hostile("x.js" + "a" * 999), "a" * MB + ".js", "`" + "a" * MB,
    hostile("a@b+c-d.e_f/"), hostile("$"), hostile("\ud800/a."),
]


@pytest.mark.parametrize("pattern", SHIPPED)
def test_hostile_megabytes_match_as_re2_does(pattern):
    ours, theirs, reference = c_only(pattern), re2_only(pattern), re.compile(pattern, re.ASCII)
    for s in HOSTILE:
        found = ours.findall(s)
        if len(found) < 10_000:  # few matches, long attempts: where re backtracks
            assert found == theirs.findall(s)
            assert spans(ours, s) == spans(theirs, s)
        else:  # many short matches: re is quick there, RE2's per-match calls are not
            assert found == reference.findall(s)


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        _match.findall(99, "x")
    with pytest.raises(TypeError):
        _match.finditer(0, b"x")


# -- header listings (the symbol channel's loop over every header's names) --

from types import SimpleNamespace  # noqa: E402

from citeledger.core.sections import Header, RenderTag, Section, Symbol  # noqa: E402

NAMES = ["run", "Router", "é", "\ud800", "a.b", "x"]
names = st.sampled_from(NAMES)
symbols = st.lists(st.builds(Symbol, names, st.sampled_from(["function", "class", "variable", "call"])), max_size=6)
tags = st.lists(st.builds(RenderTag, st.sampled_from(["focused", "skeleton"]), st.lists(names, max_size=4).map(tuple)), max_size=2)
headers = st.builds(Header, st.just("p"), st.just(""), symbols.map(tuple), st.none(), tags.map(tuple))


@st.composite
def envelopes(draw):
    """Calls of sections: a few paths, headers shared between sections (as Cuts shares them) or not, some meta."""
    pool = draw(st.lists(headers, min_size=1, max_size=4))
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        sections = []
        for _ in range(draw(st.integers(0, 5))):
            header = draw(st.one_of(st.sampled_from(pool), st.none()))
            sections.append(Section(draw(st.sampled_from(["a.js", "b.ts", "c/a.js"])), header, 1, "", draw(st.booleans())))
        calls.append(SimpleNamespace(sections=tuple(sections)))
    return tuple(calls)


def ordered(listed):
    """The listing with its insertion order made visible (sets have none to keep)."""
    return [(path, [(name, sorted(hows)) for name, hows in found.items()]) for path, found in listed.items()]


def tag_how(tag):
    return f"`{tag}` tag"


@settings(max_examples=400)
@given(calls=envelopes(), wanted=st.frozensets(names))
def test_c_listings_are_the_pure_ones(calls, wanted):
    assert ordered(_match.listings(calls, wanted, tag_how)) == ordered(matcher.pure_header_listings(calls, wanted, tag_how))


def test_listings_on_the_fixtures_are_the_pure_ones():
    from citeledger.core.accountant import Shared, _cuts_of, _envelope
    from citeledger.core.plugins import readers
    from test_kernel import ROOT

    ruleset = load_ruleset("default")
    reader = readers()["claude-stream"]()
    checked = 0
    for path in sorted((ROOT / "tests" / "fixtures").rglob("*.jsonl"))[:40]:
        try:
            transcript = reader.read([str(path)], ruleset.reader.read_options())
        except Exception:
            continue
        envelope = _envelope(_cuts_of(transcript.responses, ruleset, Shared()), ruleset.splitter, {})
        wanted = frozenset(s.name for section in envelope.sections() if section.header for s in section.header.symbols[::3])
        ours = _match.listings(envelope.calls, wanted, tag_how)
        assert ordered(ours) == ordered(matcher.pure_header_listings(envelope.calls, wanted, tag_how))
        checked += bool(ours)
    assert checked


def test_listings_pass_errors_on():
    with pytest.raises(TypeError):
        _match.listings((), {"x"}, tag_how)  # wanted must be a frozenset
    with pytest.raises(AttributeError):
        _match.listings([SimpleNamespace()], frozenset(), tag_how)
    bad = (SimpleNamespace(sections=(Section("a", Header("a", "", (), None, (RenderTag("t", ("x",)),)), 1, ""),)),)

    def boom(tag):
        raise RuntimeError(tag)

    with pytest.raises(RuntimeError):
        _match.listings(bad, frozenset({"x"}), boom)


# -- the path channel's suffix index (text keys up to 16 segments, hashes beyond) --

from citeledger.channels.path import SuffixIndex, _related  # noqa: E402

segments = st.lists(st.sampled_from(["a", "b", "", "a.js", "x"]), min_size=1, max_size=40).map("/".join)
deep = st.builds(lambda head, n, tail: "/".join([head] + ["a"] * n + [tail]), st.sampled_from(["", "a", "b"]), st.integers(10, 22), st.sampled_from(["a.js", "x"]))
paths = st.one_of(segments, deep)


@settings(max_examples=500)
@given(cited=st.lists(paths, max_size=6), files=st.lists(paths, min_size=1, max_size=6))
def test_first_related_is_the_first_related_citation(cited, files):
    index = SuffixIndex(cited)
    for f in files:
        expected = next((i for i, n in enumerate(cited) if _related(n, f)), None)
        assert index.first_related(f) == expected


@pytest.mark.parametrize("pattern", SHIPPED + [r"\w+\.js"])
@given(s=text)
def test_spans_are_finditers_spans(pattern, s):
    compiled = compile_linear(pattern)
    assert compiled.spans(s) == [m.span() for m in compiled.finditer(s)] == [m.span() for m in re.finditer(pattern, s, re.ASCII)]
