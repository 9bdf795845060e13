"""The fast header path (regexes read from the grammar's terminals) against
the lark grammar itself (header.lark, the one definition of a header)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.core.sections import header as header_mod
from citeledger.core.sections.header import parse_header, parse_with_grammar

from test_differential import header_suffix

REAL = Path(__file__).parent / "fixtures" / "real"
# A header line in a JSON-encoded transcript: the suffix stops at an escape.
REAL_HEADER = re.compile(r"\*\*`([^`\\]+)`\*\*([^\\\"]*)")

# Terminal-shaped pieces and the characters between them, with the ones that
# decide a parse: "·", "(", ")", "+N more", a word then " (".
PIECES = ["a", "Z", "_", "$", ".", "9", "(", ")", " ", ",", "+", "-", "·", "`", "*", "—", "\n", "\u2028",
          "more", " more", "+4 more", "+12 more(", "+1 more.", "x (", "focused (", "skeleton (", "(function)",
          "(calls)", "x(y)", "·)", ")", "))", "(·", "a-b (", "_x (", "x9 (", "a.b (", " (", "+3 more (", "·(", "a.b(method)", "é", "😀", "\udc00"]
hostile = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
paths = st.one_of(st.sampled_from(["lib/a.js", "x", "a b/c.py", "é/😀.go", "a\nb.js"]),
                  st.text(alphabet=st.characters(exclude_characters="`"), min_size=1, max_size=8))


@settings(max_examples=800)
@given(paths, st.one_of(hostile, header_suffix(), st.text(max_size=40)))
def test_fast_header_is_the_grammars_header(path, suffix):
    expected = parse_with_grammar(path, suffix)
    assert parse_header(path, suffix) == expected
    assert header_mod._pure(path, suffix) == expected
    # The lean LALR run over lark's tables, which tagged headers take.
    assert header_mod._lean(path, suffix) == expected


def test_the_lean_driver_is_in_use():
    assert header_mod._grammar().lean is not None  # else every tagged header would take lark's slower parse


def test_fast_path_takes_the_untagged_headers_and_agrees_on_every_real_one():
    seen = plain = 0
    for file in REAL.rglob("*.jsonl"):
        for m in REAL_HEADER.finditer(file.read_text("utf-8")):
            path, suffix = m.group(1), m.group(2)
            seen += 1
            plain += header_mod._plain(path, suffix) is not None
            expected = parse_with_grammar(path, suffix)
            assert parse_header(path, suffix) == expected, (file.name, suffix)
            assert header_mod._lean(path, suffix) == expected, (file.name, suffix)
    assert seen > 50
    assert plain > seen // 2  # the fast path is the common one, not a rarity


def test_hand_worked_headers():
    # Worked out from header.lark by hand.
    h = parse_header("lib/response.js", " — set(calls), jsonp(function), +43 more")
    assert [(s.name, s.kind) for s in h.symbols] == [("set", "calls"), ("jsonp", "function")]
    assert (h.more, h.tags, h.suffix) == (43, (), " — set(calls), jsonp(function), +43 more")
    # `more` is read only before the first "·".
    assert parse_header("a.go", " — F(method) · +8 more").more is None
    # The last `+N more` of the names wins.
    assert parse_header("a.go", " — +2 more, +5 more").more == 5
    # `+3 more(` starts a symbol-like run: not a count.
    assert parse_header("a.go", " — +3 more(x)").more is None
    t = parse_header("v.py", " — dispatch_request, View · focused (the methods)")
    assert [(r.tag, r.names) for r in t.tags] == [("focused", ("dispatch_request", "View"))]
    # An unclosed tag cannot be parsed: symbols only, no tags.
    u = parse_header("v.py", " — a(function) · focused (b(method)")
    assert (u.tags, [s.name for s in u.symbols]) == ((), ["a", "b"])
    # Nor can a ")" after a word outside a tag: no count either.
    assert parse_header("a.go", " — +3 more x) F(method)").more is None
    assert parse_header("a.go", ")+3 more F(method)").more == 3  # right after the path it is OTHER
