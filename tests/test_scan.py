"""The C line scanner (core/_scan.c) against the pure-Python reading it accelerates.

Pure Python is the reference. For a line, the scanner must give either the
pure decoding with only the schema's keys kept, or the line's raw bytes
(which the reader then decodes the pure way); for a file, read_jsonl must
give the same lines and warnings either way; for a session, the reader the
same Transcript. Lines are hostile: invalid UTF-8, lone surrogate escapes,
BOMs, duplicate keys, deep nesting, huge numbers, NaN, NUL, CR, truncation.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.core import kernel
from citeledger.core.readers import jsonl
from citeledger.core.readers.base import ReadOptions
from citeledger.core.readers.claude_interactive import ClaudeInteractiveReader
from citeledger.core.readers.claude_stream import ClaudeStreamReader
from citeledger.core.readers.jsonl import Keys, Line, decode_line, read_jsonl
from citeledger.core.readers.walker import EVENT_KEYS
from citeledger.core.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
_scan = importlib.import_module("citeledger.core._scan")  # built by pip install -e . (setup.py)
SCHEMA = EVENT_KEYS.compiled() if kernel.scan is not None else _scan.schema(EVENT_KEYS.spec)
BIG = 1 << 30


def prune(value, spec):
    """What the schema keeps of a decoded value (the reference for the scanner)."""
    if not isinstance(value, dict):
        return value
    out = {}
    for key, v in value.items():
        if key not in spec:
            continue
        sub = spec[key]
        if sub is None:
            out[key] = v
        elif isinstance(sub, list):
            out[key] = [prune(x, sub[0]) for x in v] if isinstance(v, list) else v
        else:
            out[key] = prune(v, sub) if isinstance(v, dict) else v
    return out


def pure_line(raw: bytes, limit: int = BIG):
    """The pure reader's verdict on one line: ("long",), ("blank",), ("warn",) or ("line", value, bom)."""
    warnings: list = []
    line = jsonl._decoded("f", 1, raw if len(raw) <= limit else None, warnings, limit)
    if line is not None:
        return ("line", line.value, line.bom)
    return ("warn",) if warnings and "longer" not in warnings[0].message else ("long",) if warnings else ("blank",)


def check_line(raw: bytes, limit: int = BIG):
    """Scan one line and check it against the pure path; returns what the scanner gave."""
    items, number, handed_back = _scan.scan(raw, 0, len(raw), 0, limit, SCHEMA, Line)
    assert handed_back == sum(type(item) is not Line for item in items)
    if not raw:  # no line at all (the reader never scans an empty range)
        assert (items, number) == ([], 0)
        return "blank"
    assert number == 1
    expected = pure_line(raw, limit)
    if expected == ("blank",):
        assert items == []
        return "blank"
    (item,) = items
    assert item[0] == 1
    if expected == ("long",):
        assert type(item) is tuple and item[1] is None
        return "long"
    if type(item) is Line:  # decoded in C: the pure value, pruned
        assert expected[0] == "line", (raw, expected)
        assert item.value == prune(expected[1], EVENT_KEYS.spec)
        assert item.bom is expected[2]
        _same_types(item.value, prune(expected[1], EVENT_KEYS.spec))
        return "c"
    assert type(item) is tuple and item[1] == raw  # handed back raw: the pure path decides
    return "fallback"


def _same_types(a, b):
    # == conflates True with 1 and 1 with 1.0; the walker does not.
    assert type(a) is type(b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same_types(a[k], b[k])
    elif isinstance(a, list):
        for x, y in zip(a, b):
            _same_types(x, y)


# ---------------------------------------------------------------------------
# Hostile lines

KEYS = ["type", "message", "content", "id", "tool_use_id", "name", "text", "result", "is_error",
        "parent_tool_use_id", "input", "query", "file_path", "path", "pattern", "usage", "x", "typ\\u0065", "é"]
hostile_text = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["**`lib/a.js`** — f(function)\n", "\ud800", "\udfff", "😀", "\x00", "\u2028", "é", "\x7f"]),
)
scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False),
    hostile_text,
)
value = st.recursive(
    scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)),
    max_leaves=20,
)
event = st.fixed_dictionaries(
    {"type": st.sampled_from(["assistant", "user", "result", "system"])},
    optional={
        "message": st.one_of(
            value,
            st.fixed_dictionaries({"content": st.one_of(value, st.lists(st.one_of(value, st.dictionaries(
                st.sampled_from(KEYS), value, max_size=6)), max_size=4))}),
        ),
        "result": value, "parent_tool_use_id": value, "usage": value,
    },
)


def encode(v) -> bytes:
    # ensure_ascii=False writes lone surrogates raw (invalid UTF-8 after surrogatepass); =True escapes them.
    return json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")


DAMAGE = [b"", b"\xef\xbb\xbf", b"\xff", b"\xed\xa0\x80", b"\xc3", b"\x00", b"\r", b" ", b"\x0b", b"\x0c", b"NaN",
          b"Infinity", b"1e400", b"-0", b"01", b"\\", b"\\ud800", b"\\u00e9", b'"', b",", b"}", b"]", b"{", b"[",
          b"\t", b"\xf0\x9f\x98\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\\x", b"\\uD83D\\uDE00", b"tru", b"nul"]


@st.composite
def hostile_line(draw):
    v = draw(st.one_of(event, value))
    raw = json.dumps(v, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    # Damage: insert, replace or cut at random places.
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(raw)))
        how = draw(st.sampled_from(["insert", "cut", "replace"]))
        piece = draw(st.sampled_from(DAMAGE))
        if how == "insert":
            raw = raw[:at] + piece + raw[at:]
        elif how == "cut":
            raw = raw[:at]
        else:
            raw = raw[:at] + piece + raw[at + len(piece):]
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    return raw.replace(b"\n", b"\\n")


@settings(max_examples=1500)
@given(hostile_line())
def test_a_scanned_line_is_the_pure_line_pruned_or_handed_back(raw):
    check_line(raw)


plain_scalar = st.one_of(st.none(), st.booleans(), st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20))
plain_value = st.recursive(
    plain_scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS[:-2]), inner, max_size=5)),
    max_leaves=20,
)


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(KEYS[:-2]), plain_value, max_size=6), st.booleans())
def test_ordinary_events_are_decoded_in_c(v, ascii_only):
    # The common case must not fall back, else the scanner buys nothing: an
    # object without numbers, lone surrogates or odd keys.
    assert check_line(json.dumps(v, ensure_ascii=ascii_only).encode()) == "c"


# Each hostile case by hand: (line, what the scanner must do)
CASES = [
    (b'{"type":"user","message":{"content":[{"type":"text","text":"hi"}]},"usage":{"n":1}}', "c"),
    (b'\xef\xbb\xbf{"type":"assistant"}', "c"),  # a BOM: decoded, flagged
    (b'\xef\xbb\xbf\xef\xbb\xbf{"type":"assistant"}', "fallback"),  # a second BOM is not JSON
    (b'\xef\xbb\xbf   ', "blank"),
    (b' \t\r\x0b\x0c', "blank"),  # bytes.strip()'s white space, not JSON's
    (b'\x0c{"type":"user"}', "fallback"),  # \f before the value: not JSON (a warning on the pure path)
    (b'{"type":"user"}\r', "c"),  # CRLF: \r is JSON white space
    (b'{"type":"user","x":"\xff"}', "fallback"),  # invalid UTF-8 in a skipped value
    (b'{"type":"\xed\xa0\x80"}', "fallback"),  # a UTF-8-encoded surrogate
    (b'{"type":"\\ud800"}', "fallback"),  # a lone surrogate escape: json keeps it, orjson refuses
    (b'{"type":"x","usage":"\\udc00"}', "fallback"),
    (b'{"type":"\\ud83d\\ude00"}', "c"),  # a pair: one astral character
    (b'{"type":"a","type":"b"}', "c"),  # duplicate keys: the last wins, in the first's place
    (b'{"type":"user","usage":1e400,"x":123456789012345678901234567890}', "c"),  # huge numbers, skipped
    (b'{"type":"result","result":12}', "fallback"),  # a number kept: Python reads it
    (b'{"type":"user","usage":NaN}', "fallback"),
    (b'{"type":"user","usage":Infinity}', "fallback"),
    (b'{"type":"user","message":{"content":[', "fallback"),  # truncated
    (b'{"type":"user"} x', "fallback"),
    (b'{"type":"us\x00er"}', "fallback"),  # a raw NUL
    (b'{"type":"us\\u0000er"}', "c"),
    (b'["not", "an object"]', "fallback"),
    (b'"a string"', "fallback"),
    (b'{"typ\\u0065":"user"}', "fallback"),  # an escaped key could be a kept one
    (b'{"\xc3\xa9":1,"type":"user"}', "fallback"),  # a non-ASCII key in a pruned object
    (b'{"type":"user","message":{"content":[{"type":"tool_result","content":[{"\xc3\xa9":"x"}]}]}}', "c"),
    (b'{"type":"user","x":' + b"[" * 300 + b"]" * 300 + b"}", "fallback"),  # deep: Python decides
    (b'{"type":"user","x":' + b"[" * 2000 + b"]" * 2000 + b"}", "fallback"),
    (b'{"type":"user","x":' + b"[" * 100 + b"]" * 100 + b"}", "c"),
    (b'{"type":"user","message":{"content":"a prompt"}}', "c"),
    (b'{"type":"user","message":{"content":[1]}}', "fallback"),  # a number block is kept whole
    (b'{"type":"tab\there"}', "fallback"),  # a raw control character in a string
    (b'{"type":"\xf4\x90\x80\x80"}', "fallback"),  # past U+10FFFF
    (b'{"type":"\xef\xbf\xbe\xc2\x80"}', "c"),  # noncharacters are valid UTF-8
    (b'{"type":"user","x":01}', "fallback"),
    (b'{"type":"user","x":-}', "fallback"),
    (b'{"type":"user","x":1.}', "fallback"),
    (b'{"type":"user","x":[1,]}', "fallback"),
    (b'{"type":"user",}', "fallback"),
    (b'{}', "c"),
]


@pytest.mark.parametrize("raw, outcome", CASES)
def test_hostile_cases_by_hand(raw, outcome):
    assert check_line(raw) == outcome


def test_hand_worked_values():
    raw = b'{"a":1,"type":"a","message":{"x":[1],"content":[{"text":"t","q":2},"s"]},"type":"b"}'
    items, _, _ = _scan.scan(raw, 0, len(raw), 0, BIG, SCHEMA, Line)
    assert items == [Line(1, {"type": "b", "message": {"content": [{"text": "t"}, "s"]}}, False)]
    assert list(items[0].value) == ["type", "message"]


def test_a_line_over_the_limit_is_never_decoded():
    assert check_line(b'{"type":"user"}', limit=14) == "long"
    assert check_line(b'{"type":"user"}', limit=15) == "c"


# ---------------------------------------------------------------------------
# Files: the same lines and warnings as the pure reader, at every chunk boundary


def read_both(data: bytes, limit: int, chunk: int, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    with mock.patch.object(jsonl, "_CHUNK", chunk):
        w_c: list = []
        got = list(read_jsonl(str(path), w_c, limit, EVENT_KEYS))
        w_p: list = []
        with mock.patch.object(kernel, "scan", None):
            want = list(read_jsonl(str(path), w_p, limit, EVENT_KEYS))
    return got, w_c, want, w_p


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(hostile_line(), st.sampled_from([b"", b"\r", b" "])), max_size=6),
       st.sampled_from([b"\n", b"\r\n"]), st.booleans(), st.integers(1, 300), st.integers(1, 70))
def test_a_scanned_file_is_the_pure_file(tmp_path_factory, lines, sep, end, limit, chunk):
    data = sep.join(lines) + (sep if end else b"")
    got, w_c, want, w_p = read_both(data, limit, chunk, tmp_path_factory.mktemp("f"))
    assert w_c == w_p
    assert [(l.number, l.bom) for l in got] == [(l.number, l.bom) for l in want]
    for g, w in zip(got, want):  # pruned in C, or whole when handed back to Python
        assert g.value in (prune(w.value, EVENT_KEYS.spec), w.value)


def test_a_file_without_a_schema_is_read_whole(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type":"user","usage":{"n":1}}\n')
    assert [l.value for l in read_jsonl(str(path), [])] == [{"type": "user", "usage": {"n": 1}}]


def test_a_long_line_across_chunks_is_skipped(tmp_path):
    data = b'{"type":"a"}\n' + b'{"type":"' + b"x" * 500 + b'"}\n{"type":"b"}'
    got, w_c, want, w_p = read_both(data, 100, 7, tmp_path)
    assert [l.value for l in got] == [{"type": "a"}, {"type": "b"}] and [l.number for l in got] == [1, 3]
    assert w_c == w_p and "line longer than 100 bytes" in w_c[0].message and w_c[0].line == 2


# ---------------------------------------------------------------------------
# Sessions: the same Transcript


block = st.one_of(
    st.fixed_dictionaries({"type": st.just("tool_use"), "id": st.sampled_from(["t1", "t2", 5, None, True]),
                           "name": st.sampled_from(["mcp__codegraph__codegraph_explore", "Read", 3]),
                           "input": st.one_of(value, st.fixed_dictionaries({}, optional={
                               "query": value, "file_path": value, "path": value, "pattern": value, "limit": value}))}),
    st.fixed_dictionaries({"type": st.just("tool_result"), "tool_use_id": st.sampled_from(["t1", "t2", 5, 5.0, None]),
                           "content": st.one_of(value, st.lists(st.one_of(value, st.fixed_dictionaries(
                               {"type": st.just("text"), "text": value}))))},
                          optional={"is_error": value}),
    st.fixed_dictionaries({"type": st.just("text"), "text": value}),
    value,
)
session_event = st.fixed_dictionaries(
    {"type": st.sampled_from(["assistant", "user", "result", "system", 7])},
    optional={"message": st.one_of(value, st.fixed_dictionaries({"content": st.one_of(
        st.lists(block, max_size=3), value)})), "result": value,
        "parent_tool_use_id": st.sampled_from([None, "t1", 3]), "usage": value, "sessionId": value},
)


@st.composite
def session_file(draw):
    lines = [encode(e) for e in draw(st.lists(session_event, max_size=8))]
    if draw(st.booleans()) and lines:
        lines[draw(st.integers(0, len(lines) - 1))] = draw(hostile_line())
    return b"\n".join(lines) + b"\n"


def read_session(reader, paths, options):
    try:
        return reader.read(paths, options)
    except InputError as exc:
        return ("InputError", exc.file, exc.line, exc.message)


@settings(max_examples=200, deadline=None)
@given(st.lists(session_file(), min_size=1, max_size=2), st.integers(1, 40))
def test_a_session_read_through_the_scanner_is_the_pure_session(tmp_path_factory, files, chunk):
    folder = tmp_path_factory.mktemp("s")
    paths = []
    for i, data in enumerate(files, 1):
        p = folder / (f"run.t{i}.jsonl" if i > 1 else "run.jsonl")
        p.write_bytes(data)
        paths.append(str(p))
    options = ReadOptions(max_line_bytes=400)
    with mock.patch.object(jsonl, "_CHUNK", chunk):
        got = read_session(ClaudeStreamReader(), paths, options)
        with mock.patch.object(kernel, "scan", None):
            want = read_session(ClaudeStreamReader(), paths, options)
    assert got == want


@settings(max_examples=60, deadline=None)
@given(session_file(), session_file())
def test_an_interactive_session_read_through_the_scanner_is_the_pure_session(tmp_path_factory, main, sub):
    folder = tmp_path_factory.mktemp("i")
    log = folder / "abc.jsonl"
    log.write_bytes(main)
    (folder / "abc" / "subagents").mkdir(parents=True)
    (folder / "abc" / "subagents" / "agent-1.jsonl").write_bytes(sub)
    (folder / "abc" / "subagents" / "agent-1.meta.json").write_bytes(b'{"toolUseId":"t1"}')
    got = read_session(ClaudeInteractiveReader(), [str(log)], ReadOptions())
    with mock.patch.object(kernel, "scan", None):
        want = read_session(ClaudeInteractiveReader(), [str(log)], ReadOptions())
    assert got == want


def test_every_fixture_session_reads_the_same_through_the_scanner():
    from citeledger.core.corpus import discover
    from citeledger.core.plugins import readers

    known = readers()
    refs, _ = discover([str(ROOT / "tests" / "fixtures")])
    assert len(refs) > 50
    for ref in refs:
        reader = known[ref.reader]()
        got = read_session(reader, list(ref.files), ReadOptions())
        with mock.patch.object(kernel, "scan", None):
            want = read_session(reader, list(ref.files), ReadOptions())
        assert got == want, ref.files


# ---------------------------------------------------------------------------
# Which path runs


def test_the_scanner_is_built_and_named():
    if os.environ.get(kernel.PURE_ENV, "") in ("", "0"):
        assert kernel.scan is _scan
        assert "_scan" in kernel.kernel_name().split("{")[1].split("}")[0]


def test_the_readers_tests_pass_on_the_pure_path():
    env = dict(os.environ, CITELEDGER_PURE="1")
    tests = ["tests/test_malformed.py", "tests/test_properties.py", "tests/test_beaten_path.py",
             "tests/test_partial_sessions.py", "tests/test_read_after.py", "tests/test_hostile.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *tests],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_a_file_that_cannot_be_opened_mid_session_is_the_same_error(tmp_path):
    # The walk stops inside C with the reader's OSError pending: the same
    # InputError must come out, with what was walked before it kept.
    good = tmp_path / "run.jsonl"
    good.write_bytes(b'{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}\n')
    (tmp_path / "run.t2.jsonl").symlink_to(tmp_path / "missing.jsonl")
    paths = [str(good), str(tmp_path / "run.t2.jsonl")]
    got = read_session(ClaudeStreamReader(), paths, ReadOptions())
    with mock.patch.object(kernel, "scan", None):
        want = read_session(ClaudeStreamReader(), paths, ReadOptions())
    assert got == want and got[0] == "InputError" and "no such file" in got[3]



@settings(max_examples=400)
@given(st.lists(st.sampled_from(["a", "\n", '"', "\\", "é", "ÿ", "Ā", "—", "\uffff", "😀", "\U0010ffff", "\x00",
                                 "\x7f", "x" * 17, "\t"]), max_size=40).map("".join), st.booleans())
def test_strings_of_every_width_decode_as_orjson_does(text, ascii_only):
    # Each storage width (1, 2, 4 bytes), raw or escaped, across the 16-byte blocks.
    raw = json.dumps({"type": text}, ensure_ascii=ascii_only).encode()
    (item,), _, _ = _scan.scan(raw, 0, len(raw), 0, BIG, SCHEMA, Line)
    assert type(item) is Line and item.value == orjson.loads(raw) == {"type": text}
