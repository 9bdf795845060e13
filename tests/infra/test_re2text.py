"""infra/re2text.py runs ruleset patterns (RE2 syntax) on RE2.

What it adds to RE2: the one line-start rewrite, code point offsets (and the
UTF-8 bytes when a caller slices them), lone surrogates read as U+FFFD, and
one-line refusals naming the pattern. Differential: every shipped pattern
gives the matches (spans in code points, groups) re gives for the same
pattern (re spells U+2028 as \\u2028 and the line start as the lookbehind it
is), on arbitrary text with astral characters, JavaScript's line terminators
and lone surrogates.
"""

from __future__ import annotations

import pickle
import re

import pytest
from builders import as_re
from hypothesis import given
from hypothesis import strategies as st

from citeledger.infra.re2text import MAX_PROGRAM, BadPattern, LinearPattern, NotLinear, compile_linear
from citeledger.rules.loader import shipped_names

ALPHABET = list("abxAZ_09/.@+-`*!:# (") + ["\t", "\n", "\r", "\v", "\f", "\u2028", "\u2029", "é", "K", "\u212a", "😀", "\ud800", "\udfff", "\ufffd"]
texts = st.lists(st.sampled_from(ALPHABET + ["**`a/b.js`**", "lib/x.ts", "`fooBar`", "```\n", "12\t"]), max_size=40).map("".join)
HEADER = r"(?<![^\n\r\x{2028}\x{2029}])\*\*`([^`]+)`\*\*([^\n\r\x{2028}\x{2029}]*)"
# The one rewrite, as the brief names it: a leading line-start lookbehind is RE2's multiline ^.
LINE_START = "(?<![^\\n\\r\\x{2028}\\x{2029}])"


def shipped_patterns() -> list[str]:
    """Every string a shipped ruleset gives a pattern field (the loader compiles them)."""
    from citeledger.rules.loader import load_ruleset

    found = []
    for name in shipped_names():
        ruleset = load_ruleset(name)
        for p in [  # every channel's and every counted source's (the explore source's header)
            v for rule in (*ruleset.sources, *ruleset.channel_options) for v in vars_of(rule.options)
            if isinstance(v, LinearPattern)
        ]:
            if p.pattern not in found:
                found.append(p.pattern)
    return found


def vars_of(options):
    import attrs

    return [getattr(options, f.name) for f in attrs.fields(type(options))]


SHIPPED = shipped_patterns()


def matches(pattern, text):
    return [(m.span(), m.group(), m.groups()) for m in pattern.finditer(text)]


def test_every_shipped_pattern_is_re2_syntax_but_the_header_line_start():
    import re2

    options = re2.Options()
    options.log_errors = False
    rewritten = [p for p in SHIPPED if p.startswith(LINE_START)]
    assert rewritten == [HEADER]
    for pattern in SHIPPED:
        re2.compile(pattern.removeprefix(LINE_START), options)  # raises if RE2 does not read it
    with pytest.raises(re2.error):
        re2.compile(HEADER, options)  # RE2 has no lookbehind: the rewrite is needed
    assert len(SHIPPED) >= 10


def test_the_default_patterns_are_shipped():
    # Written from default.yaml: the patterns issue 20 found quadratic on re, and the header.
    for p in (r"(?:[\w@.+-]+/)+[\w@.+-]+\.[A-Za-z]\w*", r"\b[\w@+-]+\.[A-Za-z]\w*", r"`([^`\n]+)`", r"[A-Za-z_$][\w$]*", HEADER):
        assert p in SHIPPED


def test_the_header_matches_as_javascripts_multiline_caret():
    # The header before it was written for RE2: a lookbehind after the **.
    old = re.compile(r"\*\*(?<![^\n\r\u2028\u2029]\*\*)`([^`]+)`\*\*([^\n\r\u2028\u2029]*)", re.ASCII)
    new = compile_linear(HEADER)
    for text in ("**`a.js`** x\r**`b.js`**\u2028**`c`**y\u2029 **`d`**\n**`e`**", "x**`a`**", "\r\n**`a\nb`** \u2028"):
        assert matches(new, text) == matches(old, text)


@given(texts)
def test_the_header_matches_as_javascripts_multiline_caret_on_any_text(text):
    old = re.compile(r"\*\*(?<![^\n\r\u2028\u2029]\*\*)`([^`]+)`\*\*([^\n\r\u2028\u2029]*)", re.ASCII)
    assert matches(compile_linear(HEADER), text) == matches(old, text)


@pytest.mark.parametrize("pattern", SHIPPED)
@given(text=texts)
def test_shipped_patterns_match_as_re_does(pattern, text):
    ours, theirs = compile_linear(pattern), as_re(pattern)
    assert matches(ours, text) == matches(theirs, text)
    assert ours.findall(text) == theirs.findall(text)
    assert ours.sub("\n", text) == theirs.sub("\n", text)
    assert ours.sub("", text, count=1) == theirs.sub("", text, count=1)
    m, n = ours.search(text), theirs.search(text)
    assert (m and (m.span(), m.groups())) == (n and (n.span(), n.groups()))


@pytest.mark.parametrize("pattern", SHIPPED)
@given(text=texts)
def test_byte_matches_are_finditers_in_the_bytes_or_code_points_handed_back(pattern, text):
    ours, theirs = compile_linear(pattern), as_re(pattern)
    data, found = ours.byte_matches(text)
    want = [[m.span(g) for g in range(theirs.groups + 1)] for m in theirs.finditer(text)]
    if data is None:  # ASCII, or no exact UTF-8 encoding: code points of the text
        assert found == want
        return
    assert data == text.encode("utf-8") and not text.isascii()
    groups = [[None if a == -1 else data[a:b].decode("utf-8") for a, b in spans] for spans in found]
    assert groups == [[m.group(g) for g in range(theirs.groups + 1)] for m in theirs.finditer(text)]
    assert [len(data[:spans[0][0]].decode("utf-8")) for spans in found] == [spans[0][0] for spans in want]


@pytest.mark.parametrize("pattern, text", [
    # A match of what follows the line start, not at one, overlaps the pattern's first match.
    (r"(?<![^\n])a[^z]*z", "xa\naz"),
    # Rejected where a character of two bytes starts: the search goes on at the next character.
    (r"(?<![^\n\r])é+b", "aééb\néb"),
    (r"(?<![^\n\r\x{2028}\x{2029}])😀+b", "a😀😀b\u2028😀b\r😀b"),
    (HEADER, "x**`a\n**`b`** y\r**`c`**\u2029**`d`**"),
    # The set written as the characters themselves (a YAML double-quoted string).
    ("(?<![^\n\u2028])a", "a\u2028a\ra\na"),
])
def test_matches_not_at_a_line_start_are_passed_over_as_re_does(pattern, text):
    ours, theirs = compile_linear(pattern), as_re(pattern)
    assert matches(ours, text) == matches(theirs, text)
    assert ours.spans(text) == [m.span() for m in theirs.finditer(text)]
    m, n = ours.search(text), theirs.search(text)
    assert (m and m.span()) == (n and n.span())


def test_a_line_start_holds_at_the_start_for_match_and_fullmatch():
    p = compile_linear(r"(?<![^\n])ab", single=True)
    assert p.match("abc").span() == (0, 2) and p.fullmatch("ab").span() == (0, 2)
    assert p.match("xab") is None and p.search("xab\nab").span() == (4, 6)


@pytest.mark.parametrize("pattern, why", [
    (r"(?<=a)b", "a lookaround"),
    (r"a(?=b)", "a lookaround"),
    (r"a(?!b)", "a lookaround"),
    (r"(?<=\n)a", "a lookaround"),  # a lookbehind other than a line start
    (r"(?<![^\r])a", "a lookaround"),  # a line start without \n is not one
    (r"a(?<![^\n])b", "a lookaround"),  # a line start that does not lead
    (r"(?:(?<![^\n])a)", "a lookaround"),
    (r"(?<![^\n])a|b", "a line start before a top-level |"),
    (r"(a)\1", "a backreference"),
    (r"(?P<a>x)(?P=a)", "a backreference"),
    (r"(?>a+)b", "an atomic group"),
    (r"a*+b", "a possessive repetition"),
    (r"a{1001}", "a counted repetition above 1000"),
    (r"a*", "can match the empty string"),
    (r"\b", "can match the empty string"),
    (r"(?m)^$", "can match the empty string"),
    (r"x|", "can match the empty string"),
    (r"(?<![^\n])", "can match the empty string"),
    (r"a\Cb", "\\C (one byte)"),
    ("[a-z]" + "(?:abc)?" * 300 * 10, f"larger than {MAX_PROGRAM} instructions"),
])
def test_what_re2_cannot_run_is_refused_saying_why(pattern, why):
    with pytest.raises(NotLinear) as err:
        compile_linear(pattern)
    message = str(err.value)
    assert why in message and "\n" not in message and len(message) < 300
    assert message.startswith("'" + pattern[:20])  # it names the pattern, as typed


def test_an_empty_match_is_allowed_for_single_matches():
    assert compile_linear(r"a*", single=True).fullmatch("").span() == (0, 0)
    assert compile_linear(r"\B", single=True).search("ab").span() == (1, 1)  # RE2's \B, not re's
    with pytest.raises(TypeError):
        compile_linear(r"a*", single=True).finditer("aa")


@pytest.mark.parametrize("pattern", [r"a", r"\ba", r"a$", r"^a", r"(?m)^a", r"a|b", r"\Ba\B"])
def test_a_pattern_that_cannot_match_the_empty_string_is_taken(pattern):
    assert isinstance(compile_linear(pattern), LinearPattern)


def test_syntax_re2_does_not_read_is_a_bad_pattern_naming_it():
    for bad in ("(", "a)", "[a", "a**", "\\q", "a{3,2}", "\\Z", "\\u2028"):
        with pytest.raises(BadPattern) as err:
            compile_linear(bad)
        assert not isinstance(err.value, NotLinear) and str(err.value).startswith(f"'{bad}'")
    with pytest.raises(BadPattern, match="lone surrogate"):
        compile_linear("a\ud800")


def test_anchored_says_whether_a_match_depends_on_a_line_or_text_edge():
    for pattern in (r"^a", r"a$", r"\Aa", r"a\z", r"(?m)^a", HEADER, r"(?:x|^)a"):
        assert compile_linear(pattern).anchored, pattern
    for pattern in (r"\ba\b", r"[$^]a", r"\$a\^", r"[[:alpha:]^]+", r"\Q^$\Ea"):
        assert not compile_linear(pattern).anchored, pattern


def test_a_lone_surrogate_in_the_text_is_matched_and_returned_as_is():
    p = compile_linear(r"\*\*`([^`]+)`")
    m = p.search("x **`a\ud800b.js`** y")
    assert m.group(1) == "a\ud800b.js" and m.span() == (2, 12)  # x, space, then ** at 2; the closing ` is index 11


def test_patterns_pickle_for_worker_processes():
    p = compile_linear(r"(?P<path>[a-z]+):(?P<line>[0-9]+)")
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, LinearPattern) and q == p and q.groupindex == {"path": 1, "line": 2}
    assert q.search("see a:12").group("line") == "12"
