"""The C kernel (core/_kernel.c) against the pure-Python path it accelerates.

Pure Python is the reference: each kernel function is compared with its
pure counterpart on hostile text (astral characters, lone surrogates,
Latin-1, every character the header grammar cares about). The whole of a
cheap but wide subset of the suite also runs with CITELEDGER_PURE=1.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.core import kernel
from citeledger.core.jsstr import utf16_len
from citeledger.core.sections import header as header_mod
from citeledger.core.sections.units import PURE_MEASURES

from test_header_fast import REAL, REAL_HEADER, hostile, paths
from citeledger.core.sections.header import parse_with_grammar
from test_differential import explore_text, header_suffix
from citeledger.core.sections import splitter
from citeledger.rules.loader import load_ruleset
import re

DEFAULT = load_ruleset("default")

ROOT = Path(__file__).resolve().parent.parent
_kernel = importlib.import_module("citeledger.core._kernel")  # built by pip install -e . (setup.py)
if kernel.native is None:  # CITELEDGER_PURE=1: the records are not bound to the kernel, nothing to compare
    pytest.fail("tests/test_kernel.py compares the C kernel with pure Python: run it without CITELEDGER_PURE "
                "(its pure-path subset runs in a subprocess from here)", pytrace=False)

text = st.one_of(
    st.text(max_size=60),
    st.text(alphabet=st.characters(max_codepoint=0xFF), max_size=60),
    st.text(alphabet=st.sampled_from(["a", "é", "—", "\ud800", "\udfff", "😀", "\U0010ffff", "\n", "\x00"]), max_size=40),
    hostile,
)


def test_the_kernel_is_built_where_a_compiler_exists():
    assert shutil.which("cc") or shutil.which("gcc")
    if os.environ.get(kernel.PURE_ENV, "") in ("", "0"):
        assert kernel.native is _kernel
        assert kernel.kernel_name() == "C kernel: citeledger.core.{_kernel, _scan, _match}"


@settings(max_examples=500)
@given(text)
def test_sizes_are_the_pure_sizes(s):
    assert _kernel.utf16_len(s) == utf16_len(s) == PURE_MEASURES["utf16"](s)
    assert _kernel.utf8_len(s) == PURE_MEASURES["utf8"](s) == len(s.encode("utf-8", "surrogatepass"))


def test_hand_worked_sizes():
    assert _kernel.utf16_len("a😀—") == 4  # the emoji is a surrogate pair
    assert _kernel.utf8_len("a😀—\ud800") == 1 + 4 + 3 + 3


@settings(max_examples=700)
@given(paths, st.one_of(hostile, header_suffix(), text))
def test_the_kernels_header_is_the_grammars(path, suffix):
    assert header_mod._native(path, suffix) == parse_with_grammar(path, suffix)


def test_the_kernels_header_on_every_real_header():
    seen = 0
    for file in REAL.rglob("*.jsonl"):
        for m in REAL_HEADER.finditer(file.read_text("utf-8")):
            seen += 1
            assert header_mod._native(m.group(1), m.group(2)) == parse_with_grammar(m.group(1), m.group(2))
    assert seen > 50


def test_hand_worked_header_parse():
    # (parsed, items, more, tags, bare), worked out from header.lark by hand.
    assert _kernel.header_parse(" — 9.a(function), b(B, x+2 more · +5 more") == (
        True, [("a", "function")], 2, [], ["b", "B", "x"])
    assert _kernel.header_parse(" — b(B), x")[0] is False  # ")" after the word B: RPAR, no tag open
    assert _kernel.header_parse(" — a, B · focused (x(method), y) · skeleton ()") == (
        True, [("x", "method")], None, ["focused", "skeleton"], ["a", "B"])
    assert _kernel.header_parse(")·)")[0] is True  # right after the path and after "·": OTHER
    assert _kernel.header_parse(") · )")[0] is False  # after " " (OTHER): RPAR, which nothing opened
    assert _kernel.header_parse("focused (·)")[0] is True  # "·" right after a tag opener: OTHER
    assert _kernel.header_parse("focused (a·)")[0] is False  # after a word inside a tag: DOT
    assert _kernel.header_parse("focused (a")[0] is False  # never closed


CUT_PIECES = ["**`", "`**", "`", "*", "**", "a", "lib/x.js", " — f(function)", "\n", "\r", "\u2028", "\u2029",
              "\n> ", "> ", "😀", "é", "·", " "]
cut_text = st.lists(st.sampled_from(CUT_PIECES), max_size=40).map("".join)


@settings(max_examples=700)
@given(st.one_of(cut_text, explore_text(), text), st.sampled_from(["\n> ", "", "`", "**", "\n"]))
def test_the_kernels_cut_is_the_regex_cut(response, trailer):
    assert _kernel.cut(response, trailer) == splitter._spans(response, DEFAULT.splitter.header, trailer)


def test_the_kernel_cuts_under_the_default_pattern_only():
    assert DEFAULT.splitter.header.pattern == splitter.KERNEL_HEADER  # the pattern _kernel.c implements
    if kernel.native is not None:
        assert splitter._kernel_cuts(DEFAULT.splitter.header)
    assert not splitter._kernel_cuts(re.compile(r"^\*\*`([^`]+)`\*\*(.*)$", re.M))


def test_hand_worked_cut():
    text = "intro\n**`a.js`** — x\nbody\n**`b.js`**\n***`no`**\n**`c\nd`** y\n> trailer"
    # a.js at 6; b.js at 6 + 15 + 5 = 26; c\nd at 26 + 11 + 10 = 47 (its path crosses a line end); the last ends at "\n> ".
    assert _kernel.cut(text, "\n> ") == [(6, 26, "a.js", " — x"), (26, 47, "b.js", ""), (47, 58, "c\nd", " y")]


def test_a_subset_of_the_suite_passes_on_the_pure_path():
    env = dict(os.environ, CITELEDGER_PURE="1")
    done = subprocess.run(
        [sys.executable, "-m", "citeledger.cli", "--version"], capture_output=True, text=True, env=env
    )
    assert "pure Python (CITELEDGER_PURE=1)" in done.stdout
    tests = [
        "tests/test_reference.py", "tests/test_real_fixtures.py", "tests/test_sweep.py",
        "tests/test_differential.py::test_real_and_smoke_fixtures_match_the_oracle",
        "tests/test_header_fast.py::test_fast_path_takes_the_untagged_headers_and_agrees_on_every_real_one",
        "tests/test_header_fast.py::test_hand_worked_headers",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


# --- One call per response (cut_headers, sections): the records built in C ---

from citeledger.core.sections import Header, RenderTag, Section, Symbol

MORE_PIECES = CUT_PIECES + ["```", "\n```\n", "\n```js\n", "\n```", "x = a * b\n", "**", "\u3000", " \t", "\r\n",
                            "\n\n", "meta note", " — a(function), +3 more · focused (b(method), c)", "\U0001F600"]
sections_text = st.lists(st.sampled_from(MORE_PIECES), max_size=50).map("".join)
trailers = st.sampled_from(["\n> ", "", "`", "**", "\n", ">", "😀", "\u2028x", "a"])


def pure_sections(text: str, trailer: str, meta: bool, unit: str) -> tuple:
    """The pure-Python splitter's records for the default header pattern (the reference)."""
    spans = splitter._spans(text, DEFAULT.splitter.header, trailer)
    pieces = [(p, parse_with_grammar(p, s), text[a:b], False) for a, b, p, s in spans]
    if meta and pieces:
        path, header, last, _ = pieces[-1]
        kept, rest = splitter._cut_after_last_fence(last, len(spans[-1][2]) + len(spans[-1][3]) + 6)
        pieces[-1:] = [(path, header, kept, False)] + ([("", None, rest, True)] if rest else [])
    return tuple(Section(p, h, PURE_MEASURES[unit](t), t, meta=m) for p, h, t, m in pieces)


def kernel_sections(text: str, trailer: str, meta: bool, unit: str, tables: bool = False) -> tuple:
    memos = (_kernel.Table(), _kernel.Table()) if tables else ({}, {})
    heads, spans = _kernel.cut_headers(text, trailer, *memos)
    return _kernel.sections(text, heads, spans, meta, splitter._UNITS[unit])


@settings(max_examples=700)
@given(st.one_of(sections_text, cut_text, explore_text(), text), trailers, st.booleans(),
       st.sampled_from(["utf16", "codepoint", "utf8"]))
def test_the_kernels_sections_are_the_pure_sections(response, trailer, meta, unit):
    made = kernel_sections(response, trailer, meta, unit)
    assert made == pure_sections(response, trailer, meta, unit) == kernel_sections(response, trailer, meta, unit, True)
    # the texts, read lazily, and every field, one by one (eq alone would hide a type)
    for got, want in zip(made, pure_sections(response, trailer, meta, unit)):
        assert (type(got.path), type(got.chars), got.meta) == (str, int, want.meta)
        assert got.text == want.text and hash(got.header) == hash(want.header)


def test_huge_and_empty_texts():
    body = "x = a * b\n" * 50_000 + "😀\u2028\r\n"
    response = f"**`a.js`** — f(function)\n```\n{body}```\nafter\n> trailer" * 3
    for meta in (False, True):
        for unit in ("utf16", "codepoint", "utf8"):
            assert kernel_sections(response, "\n> ", meta, unit) == pure_sections(response, "\n> ", meta, unit)
            assert kernel_sections("", "\n> ", meta, unit) == ()


def test_the_kernels_headers_are_shared_and_equal_to_the_grammars():
    headers, symbols = {}, {}
    line = " — run(function), x(method), +2 more · focused (a, b(class))"
    text = f"**`a.js`**{line}\nbody\n**`b.js`**{line}\n**`a.js`**{line}\n"
    heads, _ = _kernel.cut_headers(text, "", headers, symbols)
    assert heads[0] is heads[2] and heads[0] is not heads[1]  # one Header per header line
    assert heads[0].symbols[0] is heads[1].symbols[0]  # one Symbol per item of the call
    assert heads[0] == parse_with_grammar("a.js", line) and heads[1] == parse_with_grammar("b.js", line)
    assert set(headers) == {f"**`a.js`**{line}", f"**`b.js`**{line}"}
    assert heads[0].tags == (RenderTag("focused", ()),) and heads[0].more == 2


def test_kernel_records_behave_as_attrs_made_ones():
    import pickle

    [s] = kernel_sections("**`a.js`** — f(function)\nbody", "", False, "utf16")
    hand = Section("a.js", Header("a.js", " — f(function)", (Symbol("f", "function"),)), 29, "**`a.js`** — f(function)\nbody")
    assert s == hand and repr(s) == repr(hand) and hash(s) == hash(hand)
    assert pickle.loads(pickle.dumps(s)) == s
    assert pickle.loads(pickle.dumps(s.header)) == s.header and hash(s.header) == hash(hand.header)
    import attrs
    assert attrs.evolve(s, chars=1).text == s.text
    try:
        s.text = "x"
    except attrs.exceptions.FrozenInstanceError:
        pass
    else:
        raise AssertionError("a kernel Section must stay frozen")


# --- The accountant's per-call bookkeeping (tally, ranked) ---

from citeledger.core import accountant


def pure_tally(sections) -> tuple:
    """accountant._tally: the pure-Python loop _kernel.c tally is."""
    return accountant._tally(sections)


@settings(max_examples=300)
@given(st.one_of(sections_text, explore_text()), trailers, st.booleans(), st.sampled_from(["utf16", "utf8"]),
       st.lists(st.one_of(st.none(), st.integers(0, 2)), min_size=1, max_size=8))
def test_the_kernels_tally_and_ranking_are_the_pure_ones(response, trailer, meta, unit, ranks):
    made = kernel_sections(response, trailer, meta, unit)
    hand = tuple(Section(s.path, s.header, s.chars, s.text, meta=s.meta) for s in made)  # attrs-made: the getattr path
    want = pure_tally(made)
    assert _kernel.tally(made) == _kernel.tally(hand) == want
    paths = list(dict.fromkeys(p for p, _, _ in want[3]))
    rank = {p: ranks[i % len(ranks)] for i, p in enumerate(paths)}
    assert _kernel.ranked(want[3], rank, 3) == accountant._ranked(want[3], rank, 3)


@settings(max_examples=200)
@given(st.lists(st.one_of(sections_text, explore_text()), max_size=5), st.booleans())
def test_the_kernels_pooling_and_paths_are_the_pure_ones(responses, meta):
    calls = [kernel_sections(r, "\n> ", meta, "utf16") for r in responses]
    calls += [tuple(Section(s.path, s.header, s.chars, s.text, meta=s.meta) for s in c) for c in calls[:1]]
    rows = [pure_tally(c)[3] for c in calls]
    pooled: dict = {}
    for by_path in rows:
        for path, chars, count in by_path:
            slot = pooled.setdefault(path, [0, 0])
            slot[0] += chars
            slot[1] += count
    assert _kernel.pool(rows) == tuple((path, *slot) for path, slot in pooled.items())
    assert _kernel.file_paths(calls) == tuple(dict.fromkeys(s.path for c in calls for s in c if not s.meta))


def test_record_makers_make_what_the_classes_make():
    import pickle

    import pytest

    from citeledger.core.scores import CallScore, FileScore, SessionScore, Verdict
    from citeledger.core.sections import record_maker

    verdict = Verdict("a.js", "path", "a.js", ())
    call = CallScore(1, 10, 4, (4, 0), 2, 1, (("a.js", 4),), "f", 3, 0, 0)
    made = [
        (record_maker(Verdict)("a.js", "path", "a.js", ()), verdict),
        (record_maker(CallScore)(1, 10, 4, (4, 0), 2, 1, (("a.js", 4),), "f", 3, 0, 0), call),
        (record_maker(FileScore)("a.js", 4, 1, verdict, 0), FileScore("a.js", 4, 1, verdict)),
        (record_maker(Header)("p", "s", (), None, ()), Header("p", "s", ())),
    ]
    for got, want in made:
        assert type(got) is type(want) and got == want and repr(got) == repr(want) and hash(got) == hash(want)
        assert pickle.loads(pickle.dumps(got)) == want
    fields = [f.name for f in attrs_fields(SessionScore)]
    values = [f"v{i}" for i in range(len(fields))]
    assert record_maker(SessionScore)(*values) == SessionScore(*values)
    with pytest.raises(TypeError):
        record_maker(Verdict)("a.js", "path", "a.js")  # every field, no defaults
    with pytest.raises(TypeError):
        record_maker(Verdict)("a.js", "path", "a.js", (), channel="x")


def attrs_fields(cls):
    import attrs

    return attrs.fields(cls)


@settings(max_examples=200)
@given(st.lists(st.one_of(sections_text, explore_text()), max_size=6), st.booleans(),
       st.lists(st.one_of(st.none(), st.integers(0, 1)), min_size=1, max_size=6), st.integers(0, 2))
def test_the_kernels_charges_are_the_pure_ones(responses, meta, ranks, repeat):
    from citeledger.core.transcript import Origin

    responses = responses + responses[:repeat]  # the same text returned again
    cuts = accountant.Shared().cuts
    calls = []
    for r in responses:
        cut = cuts.cut(r, DEFAULT.splitter)
        sections = cut.sections("meta" if meta else "last-file", "utf16")
        if sections:
            calls.append(accountant.Call(len(calls) + 1, sections, Origin("f", len(calls) + 7), cut.number))
    off = type("Off", (), {"on": False})()
    layout = accountant._Layout(calls)
    paths = dict.fromkeys(p for p, *_ in layout.pooled)
    rank = {p: ranks[i % len(ranks)] for i, p in enumerate(paths)}
    made = accountant._Charges(calls, layout, rank, 2, off)
    saved, accountant.native = accountant.native, None
    try:
        pure_layout = accountant._Layout(calls)
        pure = accountant._Charges(calls, pure_layout, rank, 2, off)
    finally:
        accountant.native = saved
    for field in ("rows", "index", "heads", "pooled", "files", "meta", "envelope"):
        assert getattr(layout, field) == getattr(pure_layout, field), field
    assert (made.calls, made.used_by_rank, made.files) == (pure.calls, pure.used_by_rank, pure.files)


@settings(max_examples=200)
@given(st.lists(st.lists(st.tuples(st.booleans(), st.one_of(st.none(), st.sampled_from(["e", "f"]))),
                         min_size=4, max_size=4), max_size=3))
def test_the_kernels_verdicts_are_the_pure_ones(table):
    from citeledger.core.channel import Finding

    paths = ("a", "b", "c", "d")
    names = [f"ch{i}" for i in range(len(table))]
    judged = [{p: Finding(names[i], credited, ev if credited else None, "why") for p, (credited, ev) in zip(paths, col)}
              for i, col in enumerate(table)]
    channels = [type("C", (), {"name": n})() for n in names]
    made = accountant._verdicts(paths, judged, channels)
    saved, accountant.native = accountant.native, None
    try:
        assert made == accountant._verdicts(paths, judged, channels)
    finally:
        accountant.native = saved


def test_a_class_the_kernel_cannot_fill_is_made_by_attrs():
    import attrs as attrs_

    from citeledger.core import sections

    @attrs_.frozen
    class Checked:
        x: int = attrs_.field(validator=attrs_.validators.instance_of(int))

    assert sections.record_maker(Checked) is Checked  # a validator runs in attrs' __init__ only
    if kernel.native is not None:
        assert sections.KERNEL_RECORDS  # the section records themselves are filled by the kernel


@settings(max_examples=300)
@given(st.lists(st.tuples(paths, st.one_of(hostile, header_suffix(), text)), max_size=6))
def test_the_symbol_table_gives_the_dicts_headers(lines):
    table, memo = _kernel.Table(), {}
    for path, suffix in lines:
        if not path or "`" in path:
            continue
        assert _kernel.header(path, suffix, table) == _kernel.header(path, suffix, memo) == parse_with_grammar(path, suffix)
    assert len(table) == len(memo)


def test_the_symbol_table_shares_and_grows():
    table = _kernel.Table()
    suffixes = [" — " + ", ".join(f"n{i}_{j}(function)" for j in range(7)) for i in range(300)]
    first = [_kernel.header("a.js", s, table) for s in suffixes]
    again = [_kernel.header("b.js", s, table) for s in suffixes]
    assert len(table) == 2100
    assert all(x is y for a, b in zip(first, again) for x, y in zip(a.symbols, b.symbols))
    assert _kernel.header("c", " x(a), x(b), x(a)", table).symbols[0] is _kernel.header("d", " x(a)", table).symbols[0]
    assert [(s.name, s.kind) for s in _kernel.header("c", " x(a), x(b), xx(a)", table).symbols] == [
        ("x", "a"), ("x", "b"), ("xx", "a")]
    import pytest
    with pytest.raises(TypeError):
        _kernel.header("a", " x(a)", [])


def test_tables_share_headers_and_refuse_to_mix():
    import pytest

    lines, symbols = _kernel.Table(), _kernel.Table()
    line = " — run(function), x(method)"
    text = f"**`a.js`**{line}\n**`b.js`**{line}\n**`a.js`**{line}\n**`a.js`** — run(function)\n"
    heads, _ = _kernel.cut_headers(text, "", lines, symbols)
    assert heads[0] is heads[2] and heads[0] is not heads[1] and heads[3] is not heads[0]
    assert heads[0].symbols[0] is heads[1].symbols[0] is heads[3].symbols[0]
    assert (len(lines), len(symbols)) == (3, 2)
    again, _ = _kernel.cut_headers(text, "", lines, symbols)
    assert all(x is y for x, y in zip(heads, again))
    with pytest.raises(TypeError):
        _kernel.cut_headers(text, "", symbols, lines)  # each keeps the records it first held
    one = _kernel.Table()
    with pytest.raises(TypeError):
        _kernel.cut_headers(text, "", one, one)
