"""Differential property tests: citeledger's `default` ruleset against the oracle.

tests/oracle/reference.mjs is the spec transcribed into plain JavaScript, so it
gets UTF-16 lengths, ASCII \\w/\\b, JS line terminators, toFixed and
JSON.stringify for free. Hypothesis generates small, hostile sessions (mixed id
types, astral characters, U+2028, invalid UTF-8, BOM lines, junk lines, odd
content items); each example is a batch of sessions scored by one node process
(`--batch`), since node's start-up dominates. The text block must be equal
byte for byte, and the numbers of --json must agree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.core.accountant import score
from citeledger.cli.commands.common import read_session
from citeledger.core.readers.jsonl import BOM, js_stringify, decode_line
from citeledger.report.jsonreport import session_dict
from citeledger.report.text import render_text
from citeledger.rules.loader import load_ruleset

ORACLE = Path(__file__).parent / "oracle" / "reference.mjs"
DEFAULT = load_ruleset("default")
MISSING = object()  # a key left out of the event altogether


def node() -> str:
    found = shutil.which("node")
    if not found:
        pytest.fail("node (>= 20) is needed for the differential oracle tests")
    return found


def oracle_batch(sessions: list[list[str]]) -> list[dict]:
    proc = subprocess.run(
        [node(), str(ORACLE), "--batch"], input=json.dumps(sessions).encode(),
        capture_output=True, check=True, timeout=120,
    )
    return json.loads(proc.stdout)


# ---------------------------------------------------------------------------
# Generators. Small pools, so names and paths collide and channels interact.

PATHS = [
    "lib/response.js", "lib/utils.js", "utils.js", "src/app.ts", "./lib/x.py", "lib\\win.py",
    "src/😀.js", "a.b/c.JS", ".env", "dir/noext", "x/y.test.tsx", "lib/\nsplit.js", "pkg/é.go",
    "src/app.TS", "a/b/c/d.rb",
]
NAMES = ["handle", "sendFile", "res.send", "$el", "_priv", "data", "Name", "x.y.z", "createApp",
         "abc", "Handle", "send", "ab$c", "café"]
KINDS = ["function", "method", "class", "variable", "constant", "calls", "references", "imports",
         "enum_member", "type_alias", "route", "module", "x"]
TEXT_CHARS = list("ab /.`*\n\r> -_$(),:é") + ["\u2028", "\u2029", "😀", "\u00a0", "\ufeff", "\t", "\\"]
LINE_STARTS = ["\n", "\r", "\u2028", "\u2029", "\r\n", "", " ", "\n\n"]

free_text = st.text(alphabet=st.sampled_from(TEXT_CHARS), max_size=30)
path = st.one_of(st.sampled_from(PATHS), st.text(alphabet=st.sampled_from(list("ab/.\\_-😀\n")), min_size=1, max_size=10))


@st.composite
def header_suffix(draw) -> str:
    items = draw(st.lists(st.one_of(
        st.builds(lambda n, k: f"{n}({k})", st.sampled_from(NAMES), st.sampled_from(KINDS)),
        st.builds(lambda n: f"+{n} more", st.integers(0, 99)),
        st.builds(lambda ns: "focused (" + ", ".join(ns) + ")", st.lists(st.sampled_from(NAMES), max_size=3)),
        st.sampled_from(["(", ")", "more", "x (y", "fn()", "$(function)", "a.b(method)c(class)"]),
        free_text,
    ), max_size=5))
    return draw(st.sampled_from([" — ", "", " ", "—"])) + draw(st.sampled_from([", ", " ", ","])).join(items)


@st.composite
def explore_text(draw) -> str:
    pieces = draw(st.lists(st.one_of(
        st.builds(lambda s, p, x: f"{s}**`{p}`**{x}", st.sampled_from(LINE_STARTS), path, header_suffix()),
        free_text,
        st.just("\n```js\n1  const x = `a`;\n```\n"),
        st.just("\n> guidance: read these"),
    ), max_size=8))
    return "".join(pieces)


@st.composite
def answer_text(draw) -> str:
    def variant(p: str) -> str:
        return draw(st.sampled_from([p, "./" + p, p.replace("/", "\\"), p.rsplit("/", 1)[-1], p.upper()]))

    pieces = draw(st.lists(st.one_of(
        st.sampled_from(PATHS).map(variant),
        st.builds(lambda n: f"`{n}`", st.sampled_from(NAMES)),
        st.builds(lambda a, b: f"`{a} {b}()`", st.sampled_from(NAMES), st.sampled_from(NAMES)),
        st.sampled_from(["res.send", "mime.contentType", "utils.JS", "see `", "x.py", "a/b.c"]),
        free_text,
    ), max_size=8))
    return draw(st.sampled_from([" ", "", "\n", "\u2028"])).join(pieces)


json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(alphabet=st.sampled_from(TEXT_CHARS + ["\ud800", '"']), max_size=5),
    st.sampled_from([1e-5, 1.234e-5, 1.0, -0.0, 1e21, 1.5e300, 0.1, 12345678901234567890, 2**53 + 1]),
    st.floats(allow_nan=False, allow_infinity=False),
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "2", "10", "01", "text", "type", "-1", "\ud800"]), inner, max_size=3),
    ),
    max_leaves=6,
)


@st.composite
def tool_content(draw, text: str):
    shape = draw(st.sampled_from(["string", "list", "list", "other"]))
    if shape == "string":
        return text
    if shape == "other":
        return draw(st.sampled_from([None, 42, {"text": text}]))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=3)))
    parts = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    items: list = []
    for part in parts:
        items.append(draw(st.sampled_from([{"type": "text", "text": part}, part, {"text": part, "type": "x"}])))
        if draw(st.booleans()) and draw(st.booleans()):
            items.append(draw(st.one_of(json_value, st.just({"type": "image", "text": 5}))))
    return items


IDS = ["t1", "t2", "t3", 1, 1.0, True, None, MISSING, "1", []]
TOOL_NAMES = ["mcp__codegraph__codegraph_explore", "codegraph_explore", "Read", "x_codegraph_explorer", 5, None]


def _set(d: dict, key: str, value) -> dict:
    if value is not MISSING:
        d[key] = value
    return d


@st.composite
def event_lines(draw, fresh: list) -> list:
    """One or two lines: an event (as a dict), or raw junk bytes."""
    kind = draw(st.sampled_from(["explore", "explore", "explore", "use", "result_block", "confused", "text", "result", "junk"]))
    parent = draw(st.sampled_from([MISSING, MISSING, None, "toolu_agent"]))
    if kind == "explore":  # a matched pair with a fresh id: the common case
        fresh.append(f"e{len(fresh)}")
        tid = fresh[-1]
        use = {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": tid, "name": draw(st.sampled_from(TOOL_NAMES[:3]))}]}}
        block = {"type": "tool_result", "tool_use_id": tid, "content": draw(tool_content(draw(explore_text())))}
        _set(block, "is_error", draw(st.sampled_from([MISSING, MISSING, False, True, 0, 1, "", "x", [], {}, None])))
        res = _set({"type": "user", "message": {"content": [block]}}, "parent_tool_use_id", parent)
        return [use, res]
    if kind == "confused":  # ids JavaScript tells apart and a careless port may not
        use_id, result_id = draw(st.sampled_from(IDS)), draw(st.sampled_from(IDS))
        use = {"type": "assistant", "message": {"content": [_set({"type": "tool_use", "name": "codegraph_explore"}, "id", use_id)]}}
        block = _set({"type": "tool_result", "content": "**`lib/utils.js`** x\nbody" + draw(explore_text())}, "tool_use_id", result_id)
        return [use, {"type": "user", "message": {"content": [block]}}]
    if kind == "use":
        block = _set({"type": "tool_use", "name": draw(st.sampled_from(TOOL_NAMES))}, "id", draw(st.sampled_from(IDS)))
        return [{"type": "assistant", "message": {"content": [block]}}]
    if kind == "result_block":
        block = _set({"type": "tool_result", "content": draw(tool_content(draw(explore_text())))}, "tool_use_id", draw(st.sampled_from(IDS)))
        return [{"type": "user", "message": {"content": [block]}}]
    if kind == "text":
        blocks = [{"type": "text", "text": draw(answer_text())} for _ in range(draw(st.integers(1, 2)))]
        if draw(st.booleans()):
            blocks.append(draw(st.sampled_from([{"type": "text", "text": 5}, {"type": "thinking", "text": "x"}, "s"])))
        ev = {"type": draw(st.sampled_from(["assistant", "assistant", "user"])), "message": {"id": "m", "content": blocks}}
        return [_set(ev, "parent_tool_use_id", parent)]
    if kind == "result":
        return [{"type": "result", "subtype": "success", "result": draw(st.one_of(answer_text(), st.sampled_from([None, 5, ["x"]])))}]
    return [draw(st.sampled_from([
        b"", b"   ", b"\r", b"\xc2\xa0", b'{"type": "assistant", "mess', b"\xff\xfe garbage", b"NaN",
        b"42", b"null", b"[]", b'"str"', b"{}", BOM, BOM + b'{"type":"system"}', b"\x00",
        b'{"type":"result","result":"a \xff\xed\xa0\x80 lib/utils.js"}',
        b'{"type":"assistant","message":{"content":[{"type":"text","text":"\\ud83d `handle` \\ud800"}]}}',
    ]))]


def encode(line, ascii_only: bool, bom: bool) -> bytes:
    if isinstance(line, bytes):
        return line
    data = json.dumps(line, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    return BOM + data if bom else data


@st.composite
def session(draw) -> list[bytes]:
    """The bytes of each segment file of one session."""
    fresh: list = []
    segments = []
    for _ in range(draw(st.integers(1, 3))):
        lines = [b'{"type":"system","subtype":"init"}']
        for spec in draw(st.lists(event_lines(fresh), max_size=7)):
            for line in spec:
                lines.append(encode(line, draw(st.booleans()), draw(st.integers(0, 15)) == 0))
        ending = draw(st.sampled_from([b"\n", b"", b"\r\n", b"\n\n"]))
        segments.append(b"\n".join(lines) + ending)
    return segments


# ---------------------------------------------------------------------------
# Comparison.


def citeledger_view(files: list[str]) -> tuple[str, dict]:
    result = score(read_session(files, None, DEFAULT), DEFAULT)
    return render_text(result), session_dict(result)


def blank_lines(files: list[str]) -> int:
    """Lines citeledger skips silently as blank (the oracle counts them as skipped)."""
    count = 0
    for f in files:
        for raw in Path(f).read_bytes().split(b"\n"):
            body = raw[3:] if raw.startswith(BOM) else raw
            count += not body.strip()
    return count


def assert_same(files: list[str], js: dict) -> None:
    text, ours = citeledger_view(files)
    ref = js["json"]
    assert text == js["text"], f"text block differs for {files}"
    assert (ours["envelope"], ours["used"], ours["used_by_channel"]["path"]) == (ref["envelope"], ref["used"], ref["used_by_path"])
    assert (ours["efficiency"], ours["lower_bound"]) == (ref["efficiency"], ref["path_efficiency"])
    assert (ours["files_returned"], ours["files_used"], ours["has_answer"]) == (ref["files_returned"], ref["files_used"], ref["has_answer"])
    assert [(c["envelope"], c["used"], [(f["path"], f["chars"]) for f in c["files"]]) for c in ours["calls"]] == [
        (c["envelope"], c["used"], [(s["path"], s["chars"]) for s in c["sections"]]) for c in ref["calls"]
    ]
    assert [(f["path"], f["chars"], f["calls"], f["channel"], f["evidence"]) for f in ours["files"]] == [
        (f["path"], f["chars"], f["calls"], f["credited"], f["evidence"]) for f in ref["files"]
    ]
    # Nothing is lost silently: every line the oracle skipped is blank or warned about.
    skipped = sum(1 for w in ours["warnings"] if w["message"].startswith("not JSON"))
    assert skipped + blank_lines(files) == ref["skipped_lines"]


def run_batch(batch: list[list[bytes]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        sessions = []
        for i, segments in enumerate(batch):
            names = []
            for j, data in enumerate(segments):
                name = os.path.join(tmp, f"run-{i}.jsonl" if j == 0 else f"run-{i}.t{j + 1}.jsonl")
                Path(name).write_bytes(data)
                names.append(name)
            sessions.append(names)
        for files, js in zip(sessions, oracle_batch(sessions)):
            assert_same(files, js)


@settings(max_examples=40)
@given(st.lists(session(), min_size=1, max_size=8))
def test_generated_sessions_match_the_oracle(batch):
    run_batch(batch)


def test_real_and_smoke_fixtures_match_the_oracle():
    root = Path(__file__).parent
    stream = sorted((root / "fixtures" / "real" / "stream").glob("*.jsonl"))
    sessions = [[str(p)] for p in stream if ".t" not in p.name.removesuffix(".jsonl")]
    sessions.append([str(root / "fixtures/real/stream/flask-views.jsonl"), str(root / "fixtures/real/stream/flask-views.t2.jsonl")])
    sessions.append([str(root / "oracle/smoke/run.jsonl"), str(root / "oracle/smoke/run.t2.jsonl")])
    sessions.append([str(root / "oracle/smoke/interactive.jsonl")])
    for files, js in zip(sessions, oracle_batch(sessions)):
        assert_same(files, js)


# ---------------------------------------------------------------------------
# JSON.stringify of non-text content items: its length is charged to the file.


@settings(max_examples=40)
@given(st.lists(json_value, min_size=1, max_size=20))
def test_js_stringify_matches_node(values):
    lines = [json.dumps(v).encode() for v in values]
    script = (
        "const lines = require('fs').readFileSync(0, 'utf8').split('\\n');"
        "process.stdout.write(JSON.stringify(lines.map((l) => JSON.stringify(JSON.parse(l)))));"
    )
    proc = subprocess.run([node(), "-e", script], input=b"\n".join(lines), capture_output=True, check=True, timeout=60)
    expected = json.loads(proc.stdout)
    assert [js_stringify(decode_line(line)) for line in lines] == expected
