"""Reading JSONL lines as the reference does (JSON.parse of each "\\n"-separated line).

One implementation, two ways in: `decode_line` (every key: orjson, then the
exact JSON.parse semantics for what orjson refuses) and typed decoding
(`Keys`: msgspec keeps only the walker's keys, and hands anything it refuses
to decode_line). The expected values are JSON.parse's (checked with node):
invalid UTF-8 becomes U+FFFD per maximal bad subsequence, a lone surrogate
escape is kept, NaN and Infinity are refused, a number beyond a double is
+-Infinity. Typed decoding must accept only what decode_line accepts and give
the same values for the keys it keeps.
"""

from __future__ import annotations

import json
import math
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.infra import jsonl
from citeledger.infra.jsonl import Line, decode_line, js_string, js_stringify, read_jsonl
from citeledger.readers.walker import EVENT_KEYS

BIG = 1 << 30
INT64 = (-(1 << 63), (1 << 63) - 1)


def prune(value, spec):
    """What EVENT_KEYS keeps of a wholly decoded value."""
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


def same(typed, whole):
    """Equal values of equal types (== conflates True, 1 and 1.0; the walker does not).

    An integer beyond int64 nested in a kept value may be an int typed and a
    double whole: the same JavaScript number. (A kept value that is itself
    such an integer is left to decode_line, so it is never typed.)
    """
    if type(typed) is int and not INT64[0] <= typed <= INT64[1]:
        return type(whole) in (int, float) and (typed == whole or float(typed) == whole)
    if type(typed) is not type(whole):
        return False
    if isinstance(typed, dict):
        return list(typed) == list(whole) and all(same(typed[k], whole[k]) for k in typed)
    if isinstance(typed, list):
        return len(typed) == len(whole) and all(same(a, b) for a, b in zip(typed, whole))
    return typed == whole


def verdict(raw: bytes, keys=None, limit: int = BIG):
    """("line", value, bom), ("warn", message), ("blank",) or ("long",) for one line."""
    warnings: list = []
    typed = keys.decoder() if keys is not None else None
    line = jsonl._decoded("f", 1, raw if len(raw) <= limit else None, warnings, limit, typed)
    if line is not None:
        assert not warnings
        return ("line", line.value, line.bom)
    if not warnings:
        return ("blank",)
    return ("long",) if "longer" in warnings[0].message else ("warn", warnings[0].message)


def check(raw: bytes):
    """Typed and whole decoding of one line agree; returns the whole verdict."""
    whole = verdict(raw)
    typed = verdict(raw, EVENT_KEYS)
    if whole[0] == "line":
        assert typed[0] == "line" and typed[2] is whole[2], (raw, typed, whole)
        # Pruned, or whole where msgspec refused the line and decode_line read it.
        assert same(typed[1], prune(whole[1], EVENT_KEYS.spec)) or same(typed[1], whole[1]), (raw, typed, whole)
    else:
        assert typed == whole, raw
    return whole


# ---------------------------------------------------------------------------
# Hostile lines by hand: (line, JSON.parse's value, or "warn"/"blank")

FFFD = "\ufffd"
CASES = [
    (b'{"type":"user","message":{"content":[{"type":"text","text":"hi"}]},"usage":{"n":1}}',
     {"type": "user", "message": {"content": [{"type": "text", "text": "hi"}]}, "usage": {"n": 1}}),
    (b'\xef\xbb\xbf   ', "blank"),
    (b' \t\r\x0b\x0c', "blank"),  # bytes.strip()'s white space: a blank line
    (b'\x0c{"type":"user"}', "warn"),  # \f is no JSON white space
    (b'\xef\xbb\xbf\xef\xbb\xbf{"type":"assistant"}', "warn"),  # a second BOM is not JSON
    (b'{"type":"user"}\r', {"type": "user"}),  # CRLF: \r is JSON white space
    (b'{"type":"user","x":"\xff"}', {"type": "user", "x": FFFD}),
    (b'{"type":"a\xed\xa0\x80b"}', {"type": "a" + FFFD * 3 + "b"}),  # a UTF-8-encoded surrogate
    (b'{"type":"a\xf4\x90\x80\x80b"}', {"type": "a" + FFFD * 4 + "b"}),  # past U+10FFFF
    (b'{"type":"a\xc0\xafb"}', {"type": "a" + FFFD * 2 + "b"}),  # an overlong form
    (b'{"type":"\\ud800"}', {"type": "\ud800"}),  # a lone surrogate escape is kept
    (b'{"type":"x","usage":"\\udc00"}', {"type": "x", "usage": "\udc00"}),
    (b'{"type":"\\ud83d\\ude00"}', {"type": "\U0001f600"}),  # a pair: one astral character
    (b'{"type":"\xef\xbf\xbe\xc2\x80"}', {"type": "\ufffe\x80"}),  # noncharacters are valid UTF-8
    (b'{"type":"a","type":"b"}', {"type": "b"}),  # duplicate keys: the last wins
    (b'{"message":{"content":[]},"message":"s"}', {"message": "s"}),
    (b'{"typ\\u0065":"user"}', {"type": "user"}),  # an escaped key is its text
    (b'{"\xc3\xa9":1,"type":"user"}', {"\xe9": 1, "type": "user"}),
    (b'{"type":"user","usage":1e400}', {"type": "user", "usage": math.inf}),  # JSON.parse: Infinity
    (b'{"type":"user","usage":-1e400}', {"type": "user", "usage": -math.inf}),
    (b'{"type":"result","result":12}', {"type": "result", "result": 12}),
    (b'{"type":"result","result":1.0}', {"type": "result", "result": 1.0}),
    (b'{"type":"result","result":-0}', {"type": "result", "result": 0}),
    (b'{"type":"user","usage":NaN}', "warn"),
    (b'{"type":"user","usage":Infinity}', "warn"),
    (b'{"type":"user","usage":-Infinity}', "warn"),
    (b'{"type":"user","message":{"content":[', "warn"),  # truncated
    (b'{"type":"user"} x', "warn"),
    (b'{"type":"us\x00er"}', "warn"),  # a raw NUL
    (b'{"type":"us\\u0000er"}', {"type": "us\x00er"}),
    (b'{"type":"tab\there"}', "warn"),  # a raw control character in a string
    (b'{"type":"user","x":"tab\there"}', "warn"),  # ... in a key the walker skips too
    (b'{"type":"user","x":"\\x"}', "warn"),  # an invalid escape, skipped key
    (b'{"type":"user","x":01}', "warn"),
    (b'{"type":"user","x":-}', "warn"),
    (b'{"type":"user","x":1.}', "warn"),
    (b'{"type":"user","x":[1,]}', "warn"),
    (b'{"type":"user",}', "warn"),
    (b'["not", "an object"]', ["not", "an object"]),
    (b'"a string"', "a string"),
    (b'{"type":"user","message":{"content":"a prompt"}}', {"type": "user", "message": {"content": "a prompt"}}),
    (b'{"type":"user","message":{"content":[1, null, "s", [2]]}}',
     {"type": "user", "message": {"content": [1, None, "s", [2]]}}),
    (b'{"type":"user","x":' + b"[" * 100 + b"]" * 100 + b"}", {"type": "user", "x": json.loads("[" * 100 + "]" * 100)}),
    (b'{}', {}),
]

# Nesting past 1,024 levels: the whole decode refuses it on every Python. In a
# key no reader reads, msgspec's typed decode skips it on Python 3.12+ (the
# line is read, as JSON.parse reads it) and refuses it before 3.12, where its
# C recursion check uses the interpreter's limit (docs/robustness.md).
DEEP = b'{"type":"user","x":' + b"[" * 5000 + b"]" * 5000 + b"}"


def test_a_line_nested_past_1024_levels_is_refused_whole_and_read_pruned_from_python_312():
    import sys

    assert verdict(DEEP) == ("warn", "not JSON (nested too deeply), skipped")
    typed = verdict(DEEP, EVENT_KEYS)
    if sys.version_info >= (3, 12):
        assert typed[0] == "line" and typed[1] == {"type": "user"}
    else:
        assert typed == verdict(DEEP)


@pytest.mark.parametrize("raw, expected", CASES)
def test_hostile_lines_read_as_json_parse(raw, expected):
    got = check(raw)
    if expected in ("warn", "blank"):
        assert got[0] == expected, got
    else:
        assert got[0] == "line" and same(got[1], expected), got


def test_a_bom_is_stripped_and_flagged():
    assert check(b'\xef\xbb\xbf{"type":"assistant"}') == ("line", {"type": "assistant"}, True)
    assert check(b'{"type":"assistant"}') == ("line", {"type": "assistant"}, False)


def test_typed_decoding_keeps_only_the_walkers_keys():
    # The event's and the message's other keys are pruned; content blocks are kept whole
    # (the run log measures any block's JSON, readers/run_log.py).
    raw = b'{"a":1,"type":"a","message":{"x":[1],"content":[{"text":"t","q":2},"s"]},"type":"b"}'
    assert verdict(raw, EVENT_KEYS) == ("line", {"type": "b", "message": {"content": [{"text": "t", "q": 2}, "s"]}}, False)


def test_a_warning_says_why():
    assert check(b'{"type":"user","message":{"content":[')[1] == "not JSON (truncated), skipped"


# ---------------------------------------------------------------------------
# Numbers: the same on every path, and never past Python's int/str limit (issue 20, item 3)

HUGE = b"1" * 5000


@pytest.mark.parametrize("where, kept", [
    (b'{"type":"result","result":%s}', lambda v: v["result"]),  # a key the walker keeps
    (b'{"type":"result","result":"r","usage":%s}', lambda v: v["usage"]),  # a key it skips (read whole)
    (b'{"type":"result","result":[%s]}', lambda v: v["result"]),  # nested in a kept value
    (b'{"type":"result","result":%s,"x":"\\ud800"}', lambda v: v["result"]),  # on the fallback path
    (b'%s', lambda v: v),
])
def test_an_integer_of_5000_digits_is_infinity_as_node_reads_it(where, kept):
    for sign, inf in ((b"", "Infinity"), (b"-", "-Infinity")):
        got = check(where.replace(b"%s", sign + HUGE))
        assert got[0] == "line"
        value = kept(got[1])
        # node: String(JSON.parse("1".repeat(5000))) is "Infinity"; JSON.stringify gives null.
        assert js_string(value) == inf
        assert js_stringify(value if isinstance(value, list) else [value]) == "[null]"


# (literal, what orjson reads it as): an int within 64 bits (signed or unsigned), else a double
BOUNDS = [("0", int), ("-0", int), ("1", int), (str((1 << 53) + 1), int), (str((1 << 63) - 1), int),
          (str(1 << 63), int), (str(-(1 << 63)), int), (str(-(1 << 63) - 1), float), (str((1 << 64) - 1), int),
          (str(1 << 64), float), ("1" + "0" * 20, float), ("-1" + "0" * 21, float), ("1" + "0" * 308, float),
          ("1" + "0" * 309, float), ("1" + "0" * 4299, float), ("-1" + "0" * 4300, float)]


@pytest.mark.parametrize("text, kind", BOUNDS, ids=[f"{t[:8]}..{len(t)}" for t, _ in BOUNDS])
def test_an_integer_is_read_alike_by_orjson_and_the_fallback(text, kind):
    plain = decode_line(b'[%s,"x"]' % text.encode())[0]
    forced = decode_line(b'[%s,"\\ud800"]' % text.encode())[0]  # orjson refuses the line: the fallback reads it
    assert type(plain) is type(forced) is kind and plain == forced
    assert plain == (int(text) if kind is int else float(text))  # float() of 310+ digits: +-inf, as node reads it


def test_a_number_beyond_a_double_in_a_skipped_key_is_read(tmp_path):
    # The C scanner skipped it and the pure path refused the line: now every path reads it.
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type":"user","usage":' + HUGE + b'}\n{"type":"user","usage":1e999}\n')
    for keys in (None, EVENT_KEYS):
        warnings: list = []
        assert [line.value["type"] for line in read_jsonl(str(path), warnings, keys=keys)] == ["user", "user"]
        assert warnings == []


# ---------------------------------------------------------------------------
# Hypothesis: damaged lines (sparingly: the suite stays fast)

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
block = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["tool_use", "tool_result", "text"])},
                          optional=dict.fromkeys(["id", "tool_use_id", "name", "text", "is_error", "content", "input"], value)),
    value,
)
event = st.fixed_dictionaries(
    {"type": st.sampled_from(["assistant", "user", "result", "system"])},
    optional={
        "message": st.one_of(value, st.fixed_dictionaries({"content": st.one_of(value, st.lists(block, max_size=4))})),
        "result": value, "parent_tool_use_id": value, "usage": value,
    },
)
DAMAGE = [b"", b"\xef\xbb\xbf", b"\xff", b"\xed\xa0\x80", b"\xc3", b"\x00", b"\r", b" ", b"\x0b", b"\x0c", b"NaN",
          b"Infinity", b"1e400", b"-0", b"01", b"\\", b"\\ud800", b"\\u00e9", b'"', b",", b"}", b"]", b"{", b"[",
          b"\t", b"\xf0\x9f\x98\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\\x", b"\\uD83D\\uDE00", b"tru", b"nul",
          b"1" * 400, b"9" * 30]


def encode(v, ascii_only: bool = False) -> bytes:
    # ensure_ascii=False writes lone surrogates raw (invalid UTF-8 after surrogatepass); True escapes them.
    return json.dumps(v, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@st.composite
def hostile_line(draw):
    raw = encode(draw(st.one_of(event, value)), draw(st.booleans()))
    for _ in range(draw(st.integers(0, 3))):  # damage: insert, replace or cut at random places
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


@settings(max_examples=150, deadline=None)
@given(hostile_line())
def test_a_typed_line_is_the_whole_line_pruned(raw):
    got = check(raw)
    if got[0] == "line":  # and what is read is what JSON.parse of the replaced text gives
        assert js_stringify(got[1]) == js_stringify(json.loads(
            raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace"), parse_int=jsonl._js_int))


plain_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
plain_value = st.recursive(
    st.one_of(st.none(), st.booleans(), plain_text, st.integers(*INT64)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS[:-2]), inner, max_size=5)),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS[:-2]), plain_value, max_size=6), st.booleans())
def test_ordinary_events_are_decoded_typed(v, ascii_only):
    # The common case must not fall back, else typed decoding buys nothing.
    raw = encode(v, ascii_only)
    with mock.patch.object(jsonl, "decode_line", side_effect=AssertionError("fell back")):
        assert same(verdict(raw, EVENT_KEYS)[1], prune(v, EVENT_KEYS.spec))


# ---------------------------------------------------------------------------
# Files: every chunk boundary, over-long lines


def read(data: bytes, tmp_path, limit: int = BIG, chunk: int = 1 << 20, keys=EVENT_KEYS):
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    warnings: list = []
    with mock.patch.object(jsonl, "_CHUNK", chunk):
        lines = list(read_jsonl(str(path), warnings, limit, keys))
    return lines, warnings


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(hostile_line(), st.sampled_from([b"", b"\r", b" "])), max_size=6),
       st.sampled_from([b"\n", b"\r\n"]), st.booleans(), st.integers(1, 300), st.integers(1, 70))
def test_a_file_reads_line_by_line_at_every_chunk_size(tmp_path_factory, lines, sep, end, limit, chunk):
    data = sep.join(lines) + (sep if end else b"")
    folder = tmp_path_factory.mktemp("f")
    got, warnings = read(data, folder, limit, chunk)
    want, want_warnings = [], []
    for number, raw in enumerate(data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"), 1):
        line = jsonl._decoded("x", number, raw if len(raw) <= limit else None, want_warnings, limit,
                              EVENT_KEYS.decoder())
        if line is not None:
            want.append(line)
    assert got == want
    assert [(w.line, w.message) for w in warnings] == [(w.line, w.message) for w in want_warnings]
    assert {w.file for w in warnings} <= {str(folder / "t.jsonl")}


def test_a_long_line_across_chunks_is_skipped_never_held(tmp_path):
    data = b'{"type":"a"}\n' + b'{"type":"' + b"x" * 500 + b'"}\n{"type":"b"}'
    lines, warnings = read(data, tmp_path, limit=100, chunk=7)
    assert [(line.number, line.value) for line in lines] == [(1, {"type": "a"}), (3, {"type": "b"})]
    assert [(w.line, w.message) for w in warnings] == [(2, "line longer than 100 bytes, skipped")]


def test_a_file_read_whole_keeps_every_key(tmp_path):
    lines, _ = read(b'{"type":"user","usage":{"n":1}}\n', tmp_path, keys=None)
    assert lines == [Line(1, {"type": "user", "usage": {"n": 1}}, False)]


# ---------------------------------------------------------------------------
# A file that grows while it is read (issue 20, item 9)


def read_while_appending(path, extra: bytes, keys=EVENT_KEYS, chunk: int = 16):
    """read_jsonl, with `extra` appended once the first line has been handed over (the file is open)."""
    warnings: list = []
    with mock.patch.object(jsonl, "_CHUNK", chunk):
        reader = read_jsonl(str(path), warnings, 1 << 20, keys)
        first = next(reader)
        with open(path, "ab") as fh:
            fh.write(extra)
        return [first, *reader], warnings


@pytest.mark.parametrize("keys", [None, EVENT_KEYS])
def test_a_growing_file_is_read_as_it_was_at_open(tmp_path, keys):
    path = tmp_path / "t.jsonl"
    original = b"".join(b'{"type":"user","n":%d}\n' % i for i in range(1, 6))
    path.write_bytes(original)
    extra = b'{"type":"late"}\n' * 1000
    lines, warnings = read_while_appending(path, extra, keys)
    assert [line.number for line in lines] == [1, 2, 3, 4, 5]
    assert all(line.value["type"] == "user" for line in lines)
    size, now = len(original), len(original) + len(extra)
    assert [(w.file, w.line, w.message) for w in warnings] == [(str(path), 6, (
        f"file grew while being read (from {size:,} to {now:,} bytes): read as it was when opened, the rest left unread"))]


def test_a_line_being_written_at_open_is_read_as_it_was(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type":"user"}\n{"type":"assistant","mess')  # a writer mid-line
    lines, warnings = read_while_appending(path, b'age":{}}\n{"type":"user"}\n')
    assert [line.value for line in lines] == [{"type": "user"}]
    assert [(w.line, w.message.split(" (")[0]) for w in warnings] == [(2, "not JSON"), (2, "file grew while being read")]


def test_a_file_that_does_not_grow_has_no_note(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type":"user"}\n{"type":"user"}\n')
    lines, warnings = read_while_appending(path, b"")
    assert len(lines) == 2 and warnings == []


def test_a_file_cut_short_while_read_ends_there(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type":"user"}\n' * 10_000)  # more than a read buffer holds
    warnings: list = []
    with mock.patch.object(jsonl, "_CHUNK", 16):
        reader = read_jsonl(str(path), warnings, 1 << 20, EVENT_KEYS)
        next(reader)
        with open(path, "r+b") as fh:
            fh.truncate(48)  # at a line's end: a cut inside a line leaves it truncated (a warning)
        rest = list(reader)
    assert len(rest) < 9_999 and warnings == []  # no note: it did not grow
    assert [line.number for line in rest] == list(range(2, len(rest) + 2))
    assert all(line.value == {"type": "user"} for line in rest)


def test_a_session_appended_to_while_scored_is_scored_as_it_was(tmp_path):
    from citeledger.readers import claude_stream
    from citeledger.readers.claude_stream import ClaudeStreamReader

    path = tmp_path / "run.jsonl"
    answer = b'{"type":"result","result":"done"}\n'
    path.write_bytes(b'{"type":"system"}\n' + answer)
    late = b'{"type":"result","result":"late"}\n' * 50_000  # a writer still going

    def appending(*args, **kwargs):
        lines = read_jsonl(*args, **kwargs)
        yield next(lines)
        with open(path, "ab") as fh:
            fh.write(late)
        yield from lines

    with mock.patch.object(jsonl, "_CHUNK", 8), mock.patch.object(claude_stream, "read_jsonl", appending):
        transcript = ClaudeStreamReader().read([str(path)])
    assert [r.text for r in transcript.results] == ["done"]
    assert [(w.line, w.message.split(" (")[0]) for w in transcript.warnings] == [(3, "file grew while being read")]
