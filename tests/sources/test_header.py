"""Section headers: header.lark, parsed by lark's LALR parser, is their one definition.

Checked here against the reference's item pattern and by hand; that the
grammar's coarse terminals (a run of characters as one token) read every
header as per-character terminals would; that a header's names are parsed
only when read, and by the symbol channel only for lines holding a cited
name; that a `+N more` count is bounded; and that a plain `score` crediting
a file by symbol runs lark's LALR parser.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import forked_python
from builders import response, section, session
from citeledger.cli import main
from citeledger.core.sections import Header
from citeledger.sources.sectioned import header as header_mod
from citeledger.core import MAX_DIGITS
from citeledger.sources.sectioned.header import parse_header, read_names

from test_differential import header_suffix

REAL = Path(__file__).parent.parent / "fixtures" / "real"
# A header line in a JSON-encoded transcript: the suffix stops at an escape.
REAL_HEADER = re.compile(r"\*\*`([^`\\]+)`\*\*([^\\\"]*)")
# The reference's symbol pattern (spec: header symbols).
REF_SYMBOL = re.compile(r"([A-Za-z_$][A-Za-z0-9_$.]*)\(([a-z_]+)\)")

# Terminal-shaped pieces and the characters between them, with the ones that
# decide a parse: "·", "(", ")", "+N more", a word then " (".
PIECES = ["a", "Z", "_", "$", ".", "9", "(", ")", " ", ",", "+", "-", "·", "`", "*", "—", "\n", "\u2028",
          "more", " more", "+4 more", "+12 more(", "+1 more.", "x (", "focused (", "skeleton (", "(function)",
          "(calls)", "x(y)", "·)", ")", "))", "(·", "a-b (", "_x (", "x9 (", "a.b (", " (", "+3 more (", "·(",
          "a.b(method)", "é", "😀", "\udc00", ", ", " · ", "a(b), ", "+1234567890123 more"]
hostile = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
paths = st.one_of(st.sampled_from(["lib/a.js", "x", "a b/c.py", "é/😀.go", "a\nb.js", "", "a`b"]),
                  st.text(alphabet=st.characters(exclude_characters="`"), min_size=1, max_size=8))
suffixes = st.one_of(hostile, header_suffix(), st.text(max_size=40))


def _real_headers():
    for file in REAL.rglob("*.jsonl"):
        for m in REAL_HEADER.finditer(file.read_text("utf-8")):
            yield file.name, m.group(1), m.group(2)


def _fine_grained():
    """header.lark with per-character OTHER and one bare item a SYMBOL_ITEMS token, under the same Transformer."""
    from lark import Lark

    g = header_mod._grammar()
    text = (Path(header_mod.__file__).parent / "header.lark").read_text("utf-8")
    other = re.compile(r"^OTHER\.1: .*$", re.M)
    item = re.compile(r"^SYMBOL_ITEM\.6: .*$", re.M)
    run = re.compile(r"^SYMBOL_ITEMS\.6: .*$", re.M)
    assert other.search(text) and item.search(text) and run.search(text)  # the lines this test rewrites
    text = other.sub(lambda m: r"OTHER.1: /[^A-Za-z_$]/", text)
    text = item.sub(lambda m: r"SYMBOL_ITEM.6: /[A-Za-z_$][A-Za-z0-9_$.]*\([a-z_]+\)/", text)
    text = run.sub(lambda m: r"SYMBOL_ITEMS.6: SYMBOL_ITEM", text)  # one item a token
    return Lark(text, start=["header", "tokens"], parser="lalr", maybe_placeholders=False,
                transformer=g.parser.options.transformer)


FINE: list = []


def _fine_read(path, suffix):
    if not FINE:
        FINE.append(_fine_grained())
    parser = FINE[0]
    try:
        return parser.parse(f"**`{path}`**{suffix}", start="header")
    except header_mod._grammar().UnexpectedInput:
        tokens = parser.parse(suffix, start="tokens").scan_values(lambda t: getattr(t, "type", None) == "SYMBOL_ITEM")
        return tuple(map(header_mod._symbol, tokens)), None, ()


@settings(max_examples=400)
@given(paths, suffixes)
def test_coarse_terminals_read_every_header_as_per_character_ones(path, suffix):
    assert read_names(path, suffix) == _fine_read(path, suffix)


@settings(max_examples=300)
@given(paths, suffixes)
def test_symbols_are_the_reference_patterns_matches(path, suffix):
    symbols, _, _ = read_names(path, suffix)
    assert [(s.name, s.kind) for s in symbols] == REF_SYMBOL.findall(suffix)


def test_every_real_header_parses_structured_with_the_reference_symbols():
    seen = tagged = 0
    for name, path, suffix in _real_headers():
        seen += 1
        g = header_mod._grammar()
        g.parser.parse(f"**`{path}`**{suffix}", start="header")  # raises if only the fallback could read it
        symbols, more, tags = read_names(path, suffix)
        assert [(s.name, s.kind) for s in symbols] == REF_SYMBOL.findall(suffix), (name, suffix)
        assert read_names(path, suffix) == _fine_read(path, suffix), (name, suffix)
        counts = re.findall(r"\+([0-9]+) more$", suffix.split("·")[0].rstrip())
        assert more == (int(counts[0]) if counts else None), (name, suffix)
        tagged += bool(tags)
    assert seen > 50 and tagged > 0  # render tags among them


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
    # A "·" right after a tag's "(" is text; after a token inside a tag it ends the parse.
    assert [r.tag for r in parse_header("a.go", " — x · focused (· y)").tags] == ["focused"]
    assert parse_header("a.go", " — x · focused (y · z)").tags == ()
    # Items separated by anything: the separators are dropped.
    v = parse_header("a.go", " — a(b)(c), d(e)x(f) ,, g(h)")
    assert [(s.name, s.kind) for s in v.symbols] == [("a", "b"), ("d", "e"), ("x", "f"), ("g", "h")]


def test_a_count_has_at_most_max_digits():
    longest = "9" * MAX_DIGITS
    assert parse_header("a.go", f" — F(method), +{longest} more").more == int(longest)
    assert parse_header("a.go", f" — F(method), +{longest}9 more").more is None
    # No count at all: an earlier one stands, the item before it is read.
    huge = parse_header("a.go", " — F(method), +5 more, +" + "7" * 5_000 + " more")
    assert (huge.more, [s.name for s in huge.symbols]) == (5, ["F"])


def test_names_are_parsed_when_first_read_and_once(monkeypatch):
    calls = []
    monkeypatch.setattr(header_mod, "read_names", lambda p, s: calls.append(s) or ((), 7, ()))
    h = Header("a.go", " — F(method), +7 more", header_mod.names_of)
    assert calls == []
    assert (h.more, h.symbols, h.tags) == (7, (), ())
    assert calls == [" — F(method), +7 more"]
    assert h == Header("a.go", " — F(method), +7 more") and hash(h) == hash(Header("a.go", " — F(method), +7 more"))
    assert Header("a.go", " — F(method)").symbols == ()  # no grammar given: no names


def _spy_on_lark(monkeypatch) -> list:
    from lark.parsers.lalr_parser import LALR_Parser

    texts = []
    parse = LALR_Parser.parse

    def spy(self, lexer, start, *args, **kwargs):
        # Only header.lark's own rules: lark parses a grammar it has no cached tables for with
        # its LALR parser too (start "start"), the first run in a fresh cache.
        if start in ("line", "header", "tokens"):
            texts.append((start, lexer.text if hasattr(lexer, "text") else lexer))
        return parse(self, lexer, start, *args, **kwargs)

    monkeypatch.setattr(LALR_Parser, "parse", spy)
    return texts


def test_a_plain_score_reads_a_plain_line_by_the_terminals_and_a_tagged_one_by_larks_parser(tmp_path, capsys, monkeypatch):
    texts = _spy_on_lark(monkeypatch)
    text = response(section("lib/a.js", " — alpha(function), beta(calls)", size=300), section("lib/b.js", " — gamma(function)", size=100),
                    section("lib/c.js", " — alpha, beta · focused (alpha(function))", size=100))
    path = session(tmp_path, [text], "`alpha` does it.")
    assert main(["score", str(path)]) == 0
    out = capsys.readouterr().out
    assert "symbol" in out
    # lib/a.js's line is plain: its terminals read it; lib/c.js's holds a render tag: lark's
    # parser reads it (from after its path); lib/b.js's holds no cited name.
    shown = [(start, getattr(lexer.state.text, "text", lexer.state.text)) for start, lexer in texts]  # lark >= 1.2: a TextSlice
    assert shown == [("line", " — alpha, beta · focused (alpha(function))")]


def _both_readings(path, suffix):
    """(the terminals' reading or None, the parser's)."""
    return header_mod._terminals().read(path, suffix), header_mod.parsed_names(path, suffix)


@settings(max_examples=500)
@given(paths, suffixes)
def test_the_terminals_read_a_line_as_larks_parser_does_or_leave_it_to_it(path, suffix):
    plain, parsed = _both_readings(path, suffix)
    assert plain is None or plain == parsed
    assert read_names(path, suffix) == parsed


def test_the_terminals_read_most_real_header_lines_as_larks_parser_does():
    seen = decided = 0
    for name, path, suffix in _real_headers():
        plain, parsed = _both_readings(path, suffix)
        seen += 1
        if plain is not None:
            decided += 1
            assert plain == parsed, (name, suffix)
    assert seen > 50 and decided > seen // 2, (seen, decided)


def test_the_terminals_leave_tags_annotations_and_stray_parens_to_lark():
    terminals = header_mod._terminals()
    for suffix in (" — F(method) · +8 more", " — a · focused (b)", " — +3 more x) F(method)", ")+3 more F(method)",
                   " — a(b)(c)"):
        assert terminals.read("a.go", suffix) is None, suffix
    assert terminals.read("a`b", " — F(method)") is None  # a path PATH does not read whole
    assert terminals.read("a.go", " — F(method), x(calls), +2 more, +9 more") == (
        (header_mod.Symbol("F", "method"), header_mod.Symbol("x", "calls")), 9, ())


def test_the_kept_terminals_are_the_grammars_and_a_damaged_file_is_not_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(header_mod, "_KEPT", [])
    first = header_mod._terminals()
    (kept,) = (tmp_path / "citeledger").glob("header-terminals-*")
    monkeypatch.setattr(header_mod, "_KEPT", [])
    monkeypatch.setattr(header_mod, "_grammar", lambda: (_ for _ in ()).throw(AssertionError("built again")))
    again = header_mod._terminals()  # from the kept file, no grammar built
    assert again.item.pattern == first.item.pattern == header_mod._BUILT[0].parser.get_terminal("SYMBOL_ITEM").pattern.to_regexp()
    for damage in (b"", b"garbage", kept.read_bytes()[:10]):
        kept.write_bytes(damage)
        assert header_mod._kept_patterns(str(kept)) is None


def test_the_symbol_channel_parses_only_lines_that_hold_a_cited_name(tmp_path, capsys, monkeypatch):
    parsed = []
    read = header_mod.read_names
    monkeypatch.setattr(header_mod, "read_names", lambda p, s: parsed.append(p) or read(p, s))
    first = response(section("lib/a.js", " — alpha(function)", size=300), section("lib/b.js", " — gamma(function)", size=100),
                     section("lib/c.js", " — xalpha(calls)", size=100), section("lib/e.js", " — alphabet(calls)", size=100),
                     section("lib/f.js", " — alphabet, delta · focused (x)", size=100))
    again = response(section("lib/a.js", " — alpha(function)", size=300), section("lib/d.js", size=100))
    path = session(tmp_path, [first, again], "`alpha` and `delta` do it.")
    assert main(["score", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # lib/c.js holds "alpha(": parsed, not credited; lib/e.js holds "alpha" but
    # no "alpha(" nor a render tag: not parsed; lib/f.js has a tag naming
    # `delta`: parsed (default's tag_names_define is off: not credited). An
    # equal line is parsed once.
    assert parsed == ["lib/a.js", "lib/c.js", "lib/f.js"]
    assert {f["path"]: f["channel"] for f in data["files"]} == {
        "lib/a.js": "symbol", "lib/b.js": None, "lib/c.js": None, "lib/e.js": None, "lib/f.js": None, "lib/d.js": None}


def test_a_count_of_thousands_of_digits_scores_end_to_end(tmp_path):
    # Issue 20: int() refuses a str of more than 4,300 digits; the count is no number.
    suffix = " — send(function), +" + "4" * 5_000 + " more"
    text = response(section("lib/response.js", suffix, size=5_200), section("lib/other.js", size=100))
    path = session(tmp_path, [text], "It is `send`.")
    done = forked_python.run([sys.executable, "-m", "citeledger.cli", "score", "--json", str(path)],
                             capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    data = json.loads(done.stdout)
    assert data["ruleset"] == "default"
    assert (data["used"], data["envelope"]) == (5_200, 5_300)
    assert data["calls"][0]["files"][0] == {"path": "lib/response.js", "chars": 5_200, "channel": "symbol", "evidence": "send"}
