"""Property-based tests of the pieces the reference metric is built from.

Where the spec gives a regular expression, the expected value comes from that
pattern compiled with Python `re` + re.ASCII (equivalent to JavaScript for
these patterns: no ^/$/. and ASCII \\w, \\b), never from citeledger's code.
"""

from __future__ import annotations

import re
from unittest import mock

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.core.channel import Envelope
from citeledger.channels.path import PathChannel
from citeledger.channels.symbol import SymbolChannel
from citeledger.infra import jsonl
from citeledger.core.accountant import score
from citeledger.core.errors import InputError
from citeledger.sources.sectioned.header import parse_header
from citeledger.core.transcript import AssistantText, Origin, ResultText, ToolResult, Transcript
from citeledger.readers.claude_interactive import ClaudeInteractiveReader
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.sources.sectioned.splitter import split_sections
from citeledger.rules.loader import load_ruleset, shipped_names

from test_differential import PATHS, answer_text, explore_text, header_suffix, json_value

DEFAULT = load_ruleset("default")
RULESETS = {name: load_ruleset(name) for name in shipped_names()}

# The spec's patterns (reference-metric.md sections 2 and 3).
REF_SYMBOL = re.compile(r"([A-Za-z_$][\w$.]*)\(([a-z_]+)\)", re.ASCII)
REF_PATH_DIR = re.compile(r"(?:[\w@.+-]+/)+[\w@.+-]+\.[A-Za-z]\w*", re.ASCII)
REF_PATH_BARE = re.compile(r"\b[\w@+-]+\.[A-Za-z]\w*", re.ASCII)
REF_CODE_SPAN = re.compile(r"`([^`\n]+)`", re.ASCII)
REF_TOKEN = re.compile(r"[A-Za-z_$][\w$]*", re.ASCII)
STOPWORDS = set(
    "function return const this true false null void undefined string object number boolean array class "
    "import export async await default type value name data self super else then case from with when where "
    "that they".split()
)

# Characters that stress the header grammar's terminals: identifier parts,
# parens, the "·" annotation separator, `+N more`, backticks, line ends.
HEADER_CHARS = list("aZ_$.9(,) +-·`*—\n\r") + ["more", "focused (", "(function)", "(calls)", "x(y)", "\u2028", "é", "😀"]
header_text = st.lists(st.sampled_from(HEADER_CHARS), max_size=25).map("".join)


# ---------------------------------------------------------------------------
# Header grammar.


@given(st.text(alphabet=st.characters(exclude_characters="`"), min_size=1, max_size=12), st.one_of(header_text, header_suffix(), st.text(max_size=40)))
def test_header_never_raises_and_finds_the_reference_symbols(path, suffix):
    header = parse_header(path, suffix)
    assert [(s.name, s.kind) for s in header.symbols] == REF_SYMBOL.findall(suffix)
    assert header.path == path


# ---------------------------------------------------------------------------
# Citations.


def _extension(path: str):
    dot = path.rfind(".")
    return path[dot + 1 :].lower() if dot > 0 else None


@given(answer_text(), st.lists(st.sampled_from(PATHS), max_size=5))
def test_path_citations_are_the_reference_matches(answer, returned):
    shipped = {e for e in map(_extension, returned) if e is not None}
    expected = dict.fromkeys(m.group() for m in REF_PATH_DIR.finditer(answer))
    for m in REF_PATH_BARE.finditer(answer):
        if m.group().rsplit(".", 1)[-1].lower() in shipped:
            expected.setdefault(m.group())
    channel = PathChannel(DEFAULT.options_for("path"))
    assert list(channel.citations(answer, Envelope((), tuple(dict.fromkeys(returned))))) == list(expected)


@given(st.one_of(answer_text(), st.text(max_size=60)))
def test_symbol_citations_are_the_reference_tokens(answer):
    expected: dict[str, None] = {}
    for span in REF_CODE_SPAN.finditer(answer):
        for tok in REF_TOKEN.findall(span.group(1)):
            if len(tok) >= 4 and tok.lower() not in STOPWORDS:
                expected.setdefault(tok)
    assert SymbolChannel(DEFAULT.options_for("symbol")).citations(answer) == list(expected)


# ---------------------------------------------------------------------------
# Sections: they partition the envelope exactly.


JS_LINE_ENDS = "\n\r\u2028\u2029"
# Sizes counted by hand, not with citeledger's measures: a character outside
# the BMP is two UTF-16 code units; UTF-8 is what Python's encoder writes.
COUNTS = {
    "utf16": lambda s: sum(2 if ord(c) > 0xFFFF else 1 for c in s),
    "codepoint": len,
    "utf8": lambda s: len(s.encode("utf-8", "surrogatepass")),
}


def header_starts(text: str) -> list[int]:
    """Where spec section 2's /^\\*\\*`([^`]+)`\\*\\*(.*)$/gm matches, found by scanning, not by a regex.

    A match starts at a JavaScript line start with "**`", its path runs to the
    next backtick (at least one character, line ends included), which must
    open "`**"; the match then runs to the end of that line, and the next
    match is looked for after it.
    """
    starts, p = [], 0
    while p < len(text):
        at_line_start = p == 0 or text[p - 1] in JS_LINE_ENDS
        close = text.find("`", p + 3)
        if at_line_start and text.startswith("**`", p) and close > p + 3 and text.startswith("`**", close):
            starts.append(p)
            ends = [e for e in (text.find(c, close) for c in JS_LINE_ENDS) if e != -1]
            p = min(ends) if ends else len(text)
        else:
            p += 1
    return starts


@pytest.mark.parametrize("name", ["default", "corrected", "utf8", "codepoint"])
@given(text=explore_text())
def test_sections_partition_their_envelope(name, text):
    rules, unit = RULESETS[name].sources[0].options, RULESETS[name].unit  # the explore source's options
    sections = split_sections(text, rules, unit)
    starts = header_starts(text)
    files = [s for s in sections if not s.meta]
    assert len(files) == len(starts)
    if not starts:
        assert not sections
        return
    found = text.find("\n> ", starts[-1])
    end = len(text) if found == -1 else found
    bounds = starts + [end]
    count = COUNTS[unit]
    # Contiguous, in order, covering [first header, end) and nothing else.
    assert "".join(s.text for s in sections) == text[starts[0]:end]
    assert sum(s.chars for s in sections) == count(text[starts[0]:end])
    offset = starts[0]
    for s in sections:
        if not s.meta:
            assert offset in starts and s.text.startswith(f"**`{s.path}`**")
        offset += len(s.text)
    if rules.trailing_block == "last-file":  # every section runs from its header to the next one
        assert [(s.text, s.chars) for s in sections] == [
            (text[a:b], count(text[a:b])) for a, b in zip(bounds, bounds[1:])
        ]


# ---------------------------------------------------------------------------
# The accountant.

O = Origin("f.jsonl", 1)


@st.composite
def transcripts(draw) -> Transcript:
    responses = tuple(
        ToolResult(name="explore", blocks=tuple(draw(st.lists(explore_text(), min_size=1, max_size=3))), origin=O,
                   tool_use_id=f"t{i}")
        for i in range(draw(st.integers(0, 5)))
    )
    results = tuple(ResultText(a, O) for a in draw(st.lists(answer_text(), max_size=2)))
    texts = tuple(
        AssistantText(a, 1, True, O) for a in draw(st.lists(answer_text(), max_size=2))
    )
    return Transcript("s", ("f.jsonl",), responses, results, texts, ())


@given(transcripts(), st.sampled_from(sorted(RULESETS)))
def test_accountant_invariants(transcript, name):
    result = score(transcript, RULESETS[name])
    assert 0 <= result.used <= result.envelope
    assert 0 <= result.lower_bound <= result.efficiency <= 1
    assert result.envelope == sum(c.envelope for c in result.calls)
    assert result.used == sum(c.used for c in result.calls) == sum(result.used_by_rank)
    for c in result.calls:
        assert 0 <= c.used <= c.envelope
        assert sum(c.used_by_rank) == c.used
    # Pooled: every return of a file is charged, nothing else.
    assert sum(f.chars for f in result.files) + result.meta_chars == result.envelope
    assert sum(f.calls for f in result.files) == sum(c.sections for c in result.calls)
    assert [f.chars for f in result.files] == sorted((f.chars for f in result.files), reverse=True)
    assert len({f.path for f in result.files}) == len(result.files)
    assert result.files_used == sum(1 for f in result.files if f.verdict.credited)
    ladder = [e for _, e in result.ladder]
    assert ladder == sorted(ladder) and (not ladder or ladder[-1] == result.efficiency)
    used = sum(f.chars for f in result.files if f.verdict.credited)
    assert used == result.used


# ---------------------------------------------------------------------------
# Readers: arbitrary input gives warnings (or one clean InputError), never a crash.


@given(st.lists(st.one_of(st.integers(0, 10**12), st.just("")), max_size=30), st.integers(1, 9), st.integers(1, 17))
def test_line_reader_matches_a_plain_split(tmp_path_factory, values, limit, chunk):
    # A tiny chunk size puts line ends at every possible chunk boundary; read_jsonl's own
    # loop splits the runs (no second copy of it here): each line decoded, or warned over-long.
    lines = [str(v).encode() for v in values]
    path = tmp_path_factory.mktemp("lines") / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"\n" if lines else b""))
    warnings: list = []
    with mock.patch.object(jsonl, "_CHUNK", chunk):
        got = [(line.number, line.value) for line in jsonl.read_jsonl(str(path), warnings, limit)]
    kept = [(i, int(raw)) for i, raw in enumerate(lines, 1) if raw and len(raw) <= limit]
    assert got == kept
    assert [w.line for w in warnings] == [i for i, raw in enumerate(lines, 1) if len(raw) > limit]


event_like = st.recursive(
    st.one_of(json_value, st.sampled_from(["assistant", "user", "result", "tool_use", "tool_result", "text", "codegraph_explore"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["type", "message", "content", "id", "tool_use_id", "name", "text", "result",
                             "is_error", "parent_tool_use_id"]),
            inner, max_size=5,
        ),
    ),
    max_leaves=12,
)


def _read_or_input_error(reader, paths):
    try:
        return reader.read(paths)
    except InputError as exc:
        assert exc.file in paths or exc.file == ",".join(paths)
        assert str(exc).strip()
        return None


@given(st.lists(st.one_of(st.binary(max_size=60), event_like.map(lambda v: __import__("json").dumps(v).encode())), max_size=8))
def test_stream_reader_never_crashes(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("s") / "run.jsonl"
    path.write_bytes(b"\n".join(lines))
    transcript = _read_or_input_error(ClaudeStreamReader(), [str(path)])
    if transcript is not None:
        for w in transcript.warnings:
            assert w.file == str(path) and w.line >= 0 and w.message
        for name in sorted(RULESETS):
            score(transcript, RULESETS[name])


@given(st.binary(max_size=80), st.binary(max_size=80), st.binary(max_size=40))
def test_interactive_reader_never_crashes(tmp_path_factory, main, agent, meta):
    folder = tmp_path_factory.mktemp("i")
    session = folder / "abc.jsonl"
    session.write_bytes(b'{"type":"user","message":{"content":"q"}}\n' + main)
    (folder / "abc" / "subagents").mkdir(parents=True)
    (folder / "abc" / "subagents" / "agent-1.jsonl").write_bytes(agent)
    (folder / "abc" / "subagents" / "agent-1.meta.json").write_bytes(meta)
    transcript = _read_or_input_error(ClaudeInteractiveReader(), [str(session)])
    assert transcript is not None  # the main log has an event; a bad subagent is a warning
    score(transcript, DEFAULT)


@settings(max_examples=150)
@given(
    st.lists(st.text(alphabet="ab_$ .\n\u00e9`1", max_size=6), min_size=2, max_size=5),
    st.sampled_from([r"[A-Za-z_$][\w$]*", r"a+b?", r"\b\w+\b", r"\w+\s?", r"^a\w*", r"a(?=b)", r"(?:b|\n)a+"]),
)
def test_tokens_of_joined_spans_are_the_tokens_of_each_span(spans, token):
    """The symbol channel's one search over joined spans finds what a search per span finds."""
    from citeledger.channels.symbol import SymbolChannel, _all
    from citeledger.rules.loader import load_ruleset

    from citeledger.infra.re2text import BadPattern, compile_linear

    try:
        compiled = compile_linear(token)  # as the loader compiles it
    except BadPattern:  # e.g. the lookahead: a re.Pattern, which the channel takes as anchored
        compiled = re.compile(token, re.ASCII)
    options = attrs.evolve(load_ruleset("default").options_for("symbol"), token=compiled)
    channel = SymbolChannel(options)
    assert channel._tokens(spans) == [tok for span in spans for tok in _all(options.token, span, 0)]
