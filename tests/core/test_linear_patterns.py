"""core.patterns runs patterns on RE2 with re + ASCII's exact matches.

Its own parser of re syntax writes the RE2 pattern. Differential: every
shipped ruleset pattern RE2 runs, and small generated patterns, give the same
matches (spans in code points, groups) as re.compile(pattern, re.ASCII) on
arbitrary text, including astral characters, JavaScript's line terminators,
\\v (in re's \\s, not RE2's) and lone surrogates.
"""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from citeledger.core.patterns import LinearPattern, NotLinear, compile_linear, translate
from citeledger.rules.loader import locate, shipped_names

ALPHABET = list("abxAZ_09/.@+-`*!:# (") + ["\t", "\n", "\r", "\v", "\f", "\u2028", "\u2029", "é", "K", "\u212a", "😀", "\ud800", "\udfff", "\ufffd"]
texts = st.lists(st.sampled_from(ALPHABET + ["**`a/b.js`**", "lib/x.ts", "`fooBar`", "```\n", "12\t"]), max_size=40).map("".join)


def shipped_patterns() -> list[str]:
    found = []

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, str) and value not in found:
            try:
                re.compile(value, re.ASCII)
            except re.error:
                return
            found.append(value)

    for name in shipped_names():
        walk(yaml.safe_load(open(locate(name), encoding="utf-8")))
    return [p for p in found if compile_linear(p) is not None]


SHIPPED = shipped_patterns()


def matches(pattern, text):
    return [(m.span(), m.group(), m.groups()) for m in pattern.finditer(text)]


def test_the_default_patterns_run_on_re2():
    # Written from default.yaml: the patterns the issue found quadratic on re, and the header.
    for p in (
        r"(?:[\w@.+-]+/)+[\w@.+-]+\.[A-Za-z]\w*", r"\b[\w@+-]+\.[A-Za-z]\w*", r"`([^`\n]+)`", r"[A-Za-z_$][\w$]*",
        r"(?<![^\n\r\u2028\u2029])\*\*`([^`]+)`\*\*([^\n\r\u2028\u2029]*)",
    ):
        assert p in SHIPPED


def test_the_header_pattern_matches_as_the_one_it_replaced():
    # default.yaml's header before it was rewritten for RE2 (a lookbehind after the **).
    old = re.compile(r"\*\*(?<![^\n\r\u2028\u2029]\*\*)`([^`]+)`\*\*([^\n\r\u2028\u2029]*)", re.ASCII)
    new = compile_linear(r"(?<![^\n\r\u2028\u2029])\*\*`([^`]+)`\*\*([^\n\r\u2028\u2029]*)")
    for text in ("**`a.js`** x\r**`b.js`**\u2028**`c`**y\u2029 **`d`**\n**`e`**", "x**`a`**", "\r\n**`a\nb`** \u2028"):
        assert matches(new, text) == matches(old, text)


@given(texts)
def test_the_header_pattern_matches_as_the_one_it_replaced_on_any_text(text):
    old = re.compile(r"\*\*(?<![^\n\r\u2028\u2029]\*\*)`([^`]+)`\*\*([^\n\r\u2028\u2029]*)", re.ASCII)
    new = compile_linear(r"(?<![^\n\r\u2028\u2029])\*\*`([^`]+)`\*\*([^\n\r\u2028\u2029]*)")
    assert matches(new, text) == matches(old, text)


@pytest.mark.parametrize("pattern", SHIPPED)
@given(text=texts)
def test_shipped_patterns_match_as_re_does(pattern, text):
    ours, theirs = compile_linear(pattern), re.compile(pattern, re.ASCII)
    assert matches(ours, text) == matches(theirs, text)
    assert ours.findall(text) == theirs.findall(text)
    assert ours.sub("\n", text) == theirs.sub("\n", text)
    assert ours.sub("", text, count=1) == theirs.sub("", text, count=1)
    m, n = ours.search(text), theirs.search(text)
    assert (m and (m.span(), m.groups())) == (n and (n.span(), n.groups()))


atom = st.sampled_from([
    "a", "b", "K", "\\w", "\\W", "\\d", "\\s", "\\S", ".", "[^x]", "[ab]", "[a-c]", "[^\\n`]", "x", "\\b", "^", "\\A",
    "\\Z", "é", "[\\u0080-\\U0010ffff]", "[^a-z]", "\\u2028", "\\B", "\\v", "[\\s]", "\\x41", "\\101", "[\\b]",
    "\\N{LATIN SMALL LETTER E WITH ACUTE}", "{", "[]a]", "[^]a]", "[a-]", "\\*", "(?<![^\\n\\r\\u2028\\u2029])",
    "(?<![^\\n])", "\\0", "(?#note)",
])
regex = st.recursive(
    atom,
    lambda inner: st.one_of(
        st.builds(lambda a, q: f"(?:{a}){q}", inner, st.sampled_from(["*", "+", "?", "{2,}", "{1,3}", "{2}", "*?", "+?", "{,2}", "{,}", "??", "{1,3}?"])),
        st.builds(lambda a, b: a + b, inner, inner),
        st.builds(lambda a, b: f"(?:{a}|{b})", inner, inner),
        st.builds(lambda a: f"({a})", inner),
        st.builds(lambda a: f"(?P<g>{a})", inner),
        st.builds(lambda a, f: f"(?{f}:{a})", inner, st.sampled_from(["i", "-i", "s", "m", "i-s", "ms"])),
    ),
    max_leaves=6,
)
flags = st.sampled_from(["", "(?i)", "(?m)", "(?s)", "(?ms)", "(?i)(?s)"])


@given(flags, regex, texts)
def test_generated_patterns_re2_accepts_match_as_re_does(flag, body, text):
    pattern = flag + body
    try:
        theirs = re.compile(pattern, re.ASCII)
    except re.error:
        return  # e.g. a repeated group name
    ours = compile_linear(pattern)
    if ours is None:
        return
    assert matches(ours, text) == matches(theirs, text), pattern
    if ours.groups < 2:  # findall's own path (no match objects) for 0 or 1 group
        assert ours.findall(text) == theirs.findall(text), pattern
    m, n = ours.fullmatch(text), theirs.fullmatch(text)
    assert (m and m.span()) == (n and n.span())


@given(flags, regex, texts)
def test_generated_single_patterns_match_as_re_does(flag, body, text):
    # For search/match/fullmatch only: a pattern may then match the empty string.
    pattern = flag + body
    try:
        theirs = re.compile(pattern, re.ASCII)
    except re.error:
        return
    ours = compile_linear(pattern, single=True)
    if ours is None:
        return
    for method in ("search", "match", "fullmatch"):
        m, n = getattr(ours, method)(text), getattr(theirs, method)(text)
        assert (m and (m.span(), m.groups())) == (n and (n.span(), n.groups())), (pattern, method)


@pytest.mark.parametrize("pattern", [
    r"(?<=a)b",  # lookbehind
    r"a(?=b)",  # lookahead
    r"(a)\1",  # backreference
    r"a$",  # re's $ also matches before a final \n
    r"(?<=\n)a",  # a lookbehind other than a line start
    r"(?<![^\n\u2028])a\s",  # a line start whose line ends \s tells apart (\n in it, U+2028 not)
    r"a*",  # empty matches step differently
    "[\ud800-\udbff]",  # lone surrogates cannot be told apart in UTF-8
    r"a{1001}",  # above RE2's repetition limit
])
def test_what_re2_cannot_run_exactly_stays_on_re(pattern):
    assert compile_linear(pattern) is None
    with pytest.raises(NotLinear):
        translate(pattern)


def test_re_B_runs_on_re2_where_it_cannot_meet_an_empty_text():
    # Issue 20 item 6: the safety check passed it and re ran it in quadratic time.
    p = compile_linear(r"\B[\w@+-]+\.[A-Za-z]\w*")
    assert p is not None and p.findall("xa.js b.c") == re.findall(r"\B[\w@+-]+\.[A-Za-z]\w*", "xa.js b.c", re.ASCII)
    assert compile_linear(r"\B", single=True) is None  # re's \B never matches "", RE2's does


def test_re_syntax_errors_are_re_errors():
    for bad in ("(", "a)", "[a", "a**", "\\q", "(?P<1>a)", "a{3,2}"):
        with pytest.raises(re.error):
            compile_linear(bad, strict=True)
        assert compile_linear(bad) is None


def test_a_lone_surrogate_in_the_text_is_matched_and_returned_as_is():
    p = compile_linear(r"\*\*`([^`]+)`")
    m = p.search("x **`a\ud800b.js`** y")
    assert m.group(1) == "a\ud800b.js" and m.span() == (2, 12)  # x, space, then ** at 2; the closing ` is index 11


def test_patterns_pickle_for_worker_processes():
    import pickle

    p = compile_linear(r"(?P<path>[a-z]+):(?P<line>[0-9]+)")
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, LinearPattern) and q == p and q.groupindex == {"path": 1, "line": 2}


def test_a_leading_line_start_is_searched_from_what_follows_it():
    # The header's RE2 search starts at its literal "**`"; a line start elsewhere, or
    # one that is repeated or an alternative's, keeps the one program.
    assert translate(r"(?<![^\n\r\u2028\u2029])\*\*`([^`]+)`\*\*([^\n\r\u2028\u2029]*)").rest.startswith("[\\x{2a}]")
    for pattern in (r"a(?<![^\n])b", r"(?<![^\n])a|b", r"(?:(?<![^\n])a)", r"(?<![^\n])a(?<![^\n])b", r"(?<![^\n])"):
        assert translate(pattern, single=True).rest == ""


@pytest.mark.parametrize("pattern, text", [
    # A match of what follows the line start, not at one, overlaps the pattern's first match.
    (r"(?<![^\n])a[^z]*z", "xa\naz"),
    # Rejected where a character of two bytes starts: the search goes on at the next character.
    (r"(?<![^\n\r])é+b", "aééb\néb"),
    (r"(?<![^\n\r\u2028\u2029])😀+b", "a😀😀b\u2028😀b\r😀b"),
    (r"(?<![^\n\r\u2028\u2029])\*\*`([^`]+)`\*\*([^\n\r\u2028\u2029]*)", "x**`a\n**`b`** y\r**`c`**\u2029**`d`**"),
])
def test_matches_not_at_a_line_start_are_passed_over_as_re_does(pattern, text):
    ours, theirs = compile_linear(pattern), re.compile(pattern, re.ASCII)
    assert ours._rest is not None
    assert matches(ours, text) == matches(theirs, text)
    assert ours.spans(text) == [m.span() for m in theirs.finditer(text)]


@pytest.mark.parametrize("pattern", SHIPPED)
@given(text=texts)
def test_byte_matches_are_finditers_in_the_bytes_or_code_points_handed_back(pattern, text):
    ours, theirs = compile_linear(pattern), re.compile(pattern, re.ASCII)
    data, found = ours.byte_matches(text)
    want = [[m.span(g) for g in range(theirs.groups + 1)] for m in theirs.finditer(text)]
    if data is None:  # ASCII, or no exact UTF-8 encoding: code points of the text
        assert found == want
        return
    assert data == text.encode("utf-8") and not text.isascii()
    groups = [[None if a == -1 else data[a:b].decode("utf-8") for a, b in spans] for spans in found]
    assert groups == [[m.group(g) for g in range(theirs.groups + 1)] for m in theirs.finditer(text)]
    assert [len(data[:spans[0][0]].decode("utf-8")) for spans in found] == [spans[0][0] for spans in want]
