"""Differential property tests: citeledger's `default` ruleset against the oracle.

tests/oracle/reference.mjs is the spec transcribed into plain JavaScript, so it
gets UTF-16 lengths, ASCII \\w/\\b, JS line terminators, toFixed and
JSON.stringify for free. Hypothesis generates small, hostile sessions (mixed id
types, astral characters, U+2028, invalid UTF-8, BOM lines, junk lines, odd
content items); each example is a batch of sessions scored by the oracle in one
node process shared by the module (`--serve`), since node's start-up dominates. The text block (and the
envelope view, for the globs drawn) must be equal byte for byte, and the
numbers of --json, the answer text and the cited paths and symbols must agree.

Three kinds of generated session: hostile ones (odd ids, bytes, JSON values,
stray event shapes, content coercions), structured ones (a few paths whose
names are owned by 1 to 4 files with strong and weak kinds, answers citing
paths, bare names and symbols, several segments and results), and
interactive logs with subagent files and meta files (stitching). Planted
bugs this must catch: the ambiguity cutoff off by one, the extension gate
removed, strong and weak owners merged, the result-join separator changed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.channels.path import PathChannel
from citeledger.channels.symbol import SymbolChannel
from citeledger.engine.reading import read_session
from citeledger.core.accountant import score
from citeledger.core.channel import Envelope
from citeledger.readers.claude_interactive import ClaudeInteractiveReader
from citeledger.infra.jsonl import BOM, decode_line, js_stringify
from citeledger.report.envelope import envelope_view, render_envelope
from citeledger.report.jsonreport import session_dict
from citeledger.report.text import render_text
from citeledger.rules.loader import load_ruleset

ORACLE = Path(__file__).parent.parent / "oracle" / "reference.mjs"
DEFAULT = load_ruleset("default")
MISSING = object()  # a key left out of the event altogether


def node() -> str:
    found = shutil.which("node")
    if not found:
        pytest.fail("node (>= 20) is needed for the differential oracle tests")
    return found


def oracle_batch(sessions: list) -> list[dict]:
    """Each session: a list of headless segment files, or {files, interactive, answer}."""
    proc = subprocess.run(
        [node(), str(ORACLE), "--batch"], input=json.dumps(sessions).encode(),
        capture_output=True, check=True, timeout=120,
    )
    return json.loads(proc.stdout)


class NodeLines:
    """One node process answering each JSON line written to it with one JSON line: a property
    test's examples share it, since node's start-up would dominate each small batch."""

    def __init__(self, *args: str):
        self.proc = subprocess.Popen([node(), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)

    def ask(self, value):
        self.proc.stdin.write(json.dumps(value).encode() + b"\n")  # ASCII: no line terminator inside
        self.proc.stdin.flush()
        guard = threading.Timer(120, self.proc.kill)  # a hang fails the test instead of stalling it
        guard.start()
        try:
            line = self.proc.stdout.readline()  # bytes: only b"\n" ends it, not a raw U+2028
        finally:
            guard.cancel()
        if not line:
            pytest.fail("node ended: " + self.proc.stderr.read().decode("utf-8", "replace"))
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def oracle_server():
    """oracle_batch's answers from one `reference.mjs --serve` for the whole module."""
    server = NodeLines(str(ORACLE), "--serve")
    yield server.ask
    server.close()


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


# Strategies are built once, here, not inside the composites below: building one (and
# hypothesis validating it) on every draw costs more than the draw. The same strategies draw
# the same examples wherever they are built.
header_items = st.lists(st.one_of(
    st.builds(lambda n, k: f"{n}({k})", st.sampled_from(NAMES), st.sampled_from(KINDS)),
    st.builds(lambda n: f"+{n} more", st.integers(0, 99)),
    st.builds(lambda ns: "focused (" + ", ".join(ns) + ")", st.lists(st.sampled_from(NAMES), max_size=3)),
    st.sampled_from(["(", ")", "more", "x (y", "fn()", "$(function)", "a.b(method)c(class)"]),
    free_text,
), max_size=5)
header_dash = st.sampled_from([" — ", "", " ", "—"])
header_separator = st.sampled_from([", ", " ", ","])


@st.composite
def header_suffix(draw) -> str:
    items = draw(header_items)
    return draw(header_dash) + draw(header_separator).join(items)


explore_pieces = st.lists(st.one_of(
    st.builds(lambda s, p, x: f"{s}**`{p}`**{x}", st.sampled_from(LINE_STARTS), path, header_suffix()),
    free_text,
    st.just("\n```js\n1  const x = `a`;\n```\n"),
    st.just("\n> guidance: read these"),
), max_size=8)


@st.composite
def explore_text(draw) -> str:
    pieces = draw(explore_pieces)
    return "".join(pieces)


def _path_variant(p: str, form: int) -> str:
    return [p, "./" + p, p.replace("/", "\\"), p.rsplit("/", 1)[-1], p.upper()][form]


answer_pieces = st.lists(st.one_of(
    st.builds(_path_variant, st.sampled_from(PATHS), st.integers(0, 4)),
    st.builds(lambda n: f"`{n}`", st.sampled_from(NAMES)),
    st.builds(lambda a, b: f"`{a} {b}()`", st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.sampled_from(["res.send", "mime.contentType", "utils.JS", "see `", "x.py", "a/b.c"]),
    free_text,
), max_size=8)
answer_separator = st.sampled_from([" ", "", "\n", "\u2028"])


@st.composite
def answer_text(draw) -> str:
    pieces = draw(answer_pieces)
    return draw(answer_separator).join(pieces)


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


content_shape = st.sampled_from(["string", "list", "list", "other"])
extra_content_item = st.one_of(json_value, st.builds(lambda v: {"type": "text", "text": v}, json_value),
                               st.just({"type": "image", "text": 5}))


@st.composite
def tool_content(draw, text: str):
    shape = draw(content_shape)
    if shape == "string":
        return text
    if shape == "other":  # spec section 1: null gives "", another value its JSON
        return draw(st.sampled_from([None, 42, {"text": text}, True, [], MISSING]))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=3)))
    parts = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    items: list = []
    for part in parts:
        items.append(draw(st.sampled_from([
            {"type": "text", "text": part}, part, {"text": part, "type": "x"},
            {"type": "text", "text": [part]}, {"type": "text", "text": [part, 7, None, [True]]},  # String(): "a,7,,true"
        ])))
        if draw(st.booleans()) and draw(st.booleans()):
            items.append(draw(extra_content_item))
    return items


IDS = ["t1", "t2", "t3", 1, 1.0, True, None, MISSING, "1", []]
EVENT_KINDS = ["assistant", "user", "system", "progress", "result", MISSING, 5]
TOOL_NAMES = ["mcp__codegraph__codegraph_explore", "codegraph_explore", "Read", "x_codegraph_explorer", 5, None]


def _set(d: dict, key: str, value) -> dict:
    if value is not MISSING:
        d[key] = value
    return d


event_kind = st.sampled_from(["explore", "explore", "explore", "use", "result_block", "confused", "text", "result",
                              "stray", "junk"])
event_parent = st.sampled_from([MISSING, MISSING, None, "toolu_agent"])
explore_tool_name = st.sampled_from(TOOL_NAMES[:3])
is_error_value = st.sampled_from([MISSING, MISSING, False, True, 0, 1, "", "x", [], {}, None])
tool_id = st.sampled_from(IDS)
an_event_kind = st.sampled_from(EVENT_KINDS)
tool_name = st.sampled_from(TOOL_NAMES)
odd_text_block = st.sampled_from([
    {"type": "text", "text": 5}, {"type": "thinking", "text": "x"}, "s", {"type": "text", "text": 0},
    {"type": "text", "text": False}, {"type": "text", "text": None}, {"type": "text", "text": ["see", "lib/utils.js"]},
    {"type": "text", "text": {"a": 1}}, {"type": "text", "text": []}, {"type": "text"},
])
text_event_type = st.sampled_from(["assistant", "assistant", "user"])
result_value = st.one_of(answer_text(), st.sampled_from([None, 5, ["x"]]))
junk_line = st.sampled_from([
    b"", b"   ", b"\r", b"\xc2\xa0", b'{"type": "assistant", "mess', b"\xff\xfe garbage", b"NaN",
    b"42", b"null", b"[]", b'"str"', b"{}", BOM, BOM + b'{"type":"system"}', b"\x00",
    b'{"type":"result","result":"a \xff\xed\xa0\x80 lib/utils.js"}',
    b'{"type":"assistant","message":{"content":[{"type":"text","text":"\\ud83d `handle` \\ud800"}]}}',
])


@st.composite
def event_lines(draw, fresh: list) -> list:
    """One or two lines: an event (as a dict), or raw junk bytes."""
    kind = draw(event_kind)
    parent = draw(event_parent)
    if kind == "explore":  # a matched pair with a fresh id: the common case
        fresh.append(f"e{len(fresh)}")
        tid = fresh[-1]
        use = {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": tid, "name": draw(explore_tool_name)}]}}
        block = _set({"type": "tool_result", "tool_use_id": tid}, "content", draw(tool_content(draw(explore_text()))))
        _set(block, "is_error", draw(is_error_value))
        res = _set({"type": "user", "message": {"content": [block]}}, "parent_tool_use_id", parent)
        return [use, res]
    if kind == "confused":  # ids JavaScript tells apart and a careless port may not
        use_id, result_id = draw(tool_id), draw(tool_id)
        use = {"type": "assistant", "message": {"content": [_set({"type": "tool_use", "name": "codegraph_explore"}, "id", use_id)]}}
        block = _set({"type": "tool_result", "content": "**`lib/utils.js`** x\nbody" + draw(explore_text())}, "tool_use_id", result_id)
        return [use, {"type": "user", "message": {"content": [block]}}]
    if kind == "stray":  # blocks in events the headless reader ignores (spec section 1)
        fresh.append(f"s{len(fresh)}")
        tid = fresh[-1]
        use_kind, result_kind = draw(an_event_kind), draw(an_event_kind)
        use = _set({"message": {"content": [{"type": "tool_use", "id": tid, "name": "codegraph_explore"}]}}, "type", use_kind)
        block = {"type": "tool_result", "tool_use_id": tid, "content": draw(explore_text()) + "\n**`lib/utils.js`** — f(function)\nx"}
        return [use, _set({"message": {"content": [block]}}, "type", result_kind)]
    if kind == "use":
        block = _set({"type": "tool_use", "name": draw(tool_name)}, "id", draw(tool_id))
        return [{"type": "assistant", "message": {"content": [block]}}]
    if kind == "result_block":
        block = _set(_set({"type": "tool_result"}, "content", draw(tool_content(draw(explore_text())))), "tool_use_id", draw(tool_id))
        return [{"type": "user", "message": {"content": [block]}}]
    if kind == "text":
        blocks = [{"type": "text", "text": draw(answer_text())} for _ in range(draw(st.integers(1, 2)))]
        if draw(st.booleans()):
            blocks.append(draw(odd_text_block))
        ev = {"type": draw(text_event_type), "message": {"id": "m", "content": blocks}}
        return [_set(ev, "parent_tool_use_id", parent)]
    if kind == "result":
        return [{"type": "result", "subtype": "success", "result": draw(result_value)}]
    return [draw(junk_line)]


def encode(line, ascii_only: bool, bom: bool) -> bytes:
    if isinstance(line, bytes):
        return line
    data = json.dumps(line, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    return BOM + data if bom else data


segment_ending = st.sampled_from([b"\n", b"", b"\r\n", b"\n\n"])


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
        ending = draw(segment_ending)
        segments.append(b"\n".join(lines) + ending)
    return segments


# ---------------------------------------------------------------------------
# Structured sessions: few paths, names owned by 1 to 4 of them (strong and
# weak kinds), answers that cite paths, bare names and symbols. These are the
# sessions where the ambiguity cutoff, the extension gate, the owner split and
# the result-join separator decide numbers.

FILES = ["lib/a.js", "lib/b.js", "src/c.ts", "lib/sub/d.js", "utils.js", "lib/utils.js", "pkg/e.go", "f.py",
         "lib/G.JS", "lib/res.send"]
SYMBOLS = ["alpha", "Bravo", "charlie", "delta_x", "$echo", "fox2", "gulf", "ab", "data", "hotel"]
STRONG = ["function", "method", "class", "interface", "route"]
WEAK = ["variable", "constant"]
EDGE = ["calls", "references"]
DECOYS = ["res.send", "mime.contentType", "x.go", "app.TS", "Node.js", "a/b.c", "e.go", "d.js", "req.fresh", "c.Ts"]
GLOBS = ["lib/**", "**/*.js", "lib/*.js", "src/c.?ts", "lib/utils?.js", "*.py", "**", "lib/sub/*", "pkg/e.go",
         "lib/[ab].js", "lib/(a).js", "**/utils.js", "x/**"]


source_lines = st.lists(st.text(alphabet=st.sampled_from(list("ab (){};=`😀é\t") + ["\u2028"]), max_size=12), max_size=4)


@st.composite
def source_body(draw) -> str:
    lines = draw(source_lines)
    return "\n```js\n" + "".join(f"{i + 1}  {line}\n" for i, line in enumerate(lines)) + "```\n"


response_opening = st.sampled_from(["**Exploration: q**\n\n", "", "## Blast radius\n- x\n\n"])
more_count = st.sampled_from(["", ", +3 more"])
response_closing = st.sampled_from(["", "\n> Use these.", "\nNot shown above: x\n> q"])


@st.composite
def structured_calls(draw, files: list[str], listings: dict) -> list[str]:
    texts = []
    for _ in range(draw(st.integers(1, 3))):
        chosen = draw(st.lists(st.sampled_from(files), min_size=1, max_size=len(files) + 1))  # repeats allowed
        parts = [draw(response_opening)]
        for f in chosen:
            listed = draw(st.lists(st.sampled_from(listings[f]), max_size=4, unique=True)) if listings[f] else []
            parts.append(f"**`{f}`** — " + ", ".join(listed) + draw(more_count) + draw(source_body()))
        parts.append(draw(response_closing))
        texts.append("".join(parts))
    return texts


some_files = st.lists(st.sampled_from(FILES), min_size=1, max_size=6, unique=True)
some_symbols = st.lists(st.sampled_from(SYMBOLS), min_size=1, max_size=5, unique=True)
listed_kind = st.sampled_from(STRONG + WEAK + WEAK + EDGE[:1])


@st.composite
def ownership(draw) -> tuple[list[str], dict]:
    files = draw(some_files)
    listings: dict[str, list[str]] = {f: [] for f in files}
    for name in draw(some_symbols):
        for f in draw(st.lists(st.sampled_from(files), min_size=1, max_size=min(4, len(files)), unique=True)):
            listings[f].append(f"{name}({draw(listed_kind)})")
    return files, listings


def _cite_file(f: str, form: int) -> str:
    return [f, "./" + f, f.replace("/", "\\"), f.rsplit("/", 1)[-1], f.upper(), "see " + f + ":12"][form]


citing_pieces = (  # after the file citations, which each answer draws from its own files
    st.builds(lambda n: f"`{n}`", st.sampled_from(SYMBOLS)),
    st.builds(lambda n: f"`obj.{n}()`", st.sampled_from(SYMBOLS)),
    st.builds(lambda a, b: f"`{a} {b}`", st.sampled_from(SYMBOLS), st.sampled_from(SYMBOLS)),
    st.sampled_from(DECOYS),
    st.sampled_from(["the", "and", "\n\n", "it calls", "`", "**"]),
)
citing_separator = st.sampled_from([" ", "\n", ", "])


@st.composite
def citing_answer(draw, files: list[str]) -> str:
    # No draw() inside a map(): hypothesis could not replay it while shrinking.
    pieces = draw(st.lists(st.one_of(st.builds(_cite_file, st.sampled_from(files), st.integers(0, 5)), *citing_pieces),
                           min_size=1, max_size=6))
    return draw(citing_separator).join(pieces)


def explore_pair(tid: str, content, name: str = "mcp__codegraph__codegraph_explore", **extra) -> list[dict]:
    use = {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": tid, "name": name, "input": {}}]}}
    result = {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": tid, "content": content}]}, **extra}
    return [use, result]


not_an_answer = st.sampled_from([None, 5, MISSING])


@st.composite
def structured_session(draw) -> list[bytes]:
    files, listings = draw(ownership())
    segments = []
    n = 0
    for _ in range(draw(st.integers(1, 3))):
        rows: list = [{"type": "system", "subtype": "init"}]
        for text in draw(structured_calls(files, listings)):
            n += 1
            rows += explore_pair(f"toolu_{n}", draw(st.sampled_from([text, [{"type": "text", "text": text}]])))
        if draw(st.integers(0, 4)) == 0:  # a stray explore in a system event: the headless reader ignores it
            n += 1
            use, result = explore_pair(f"toolu_{n}", f"**`{files[0]}`** — zulu(function)\nx")
            rows += [use, dict(result, type="system")]
        rows.append({"type": "assistant", "message": {"content": [{"type": "text", "text": draw(citing_answer(files))}]}})
        result = draw(st.one_of(citing_answer(files), not_an_answer))
        if draw(st.integers(0, 5)):
            rows.append(_set({"type": "result", "subtype": "success"}, "result", result))
        segments.append(b"\n".join(json.dumps(r, ensure_ascii=False).encode("utf-8", "surrogatepass") for r in rows) + b"\n")
    return segments


# ---------------------------------------------------------------------------
# Interactive logs: a session file and subagent files appended after it.

SUBAGENT_NAMES = ["agent-a.jsonl", ".hidden.jsonl", "agent-B.jsonl", "Z.jsonl", "agent-é.jsonl", "agent-a1.jsonl"]
METAS = [None, '{"toolUseId": "toolu_agent"}', '{"toolUseId": ""}', '{"toolUseId": 0}', '{"toolUseId": false}',
         '{"toolUseId": null}', "{}", "not json", "5", '{"toolUseId": "toolu_other"}', '{"toolUseId": []}', "null"]


some_subagents = st.lists(st.sampled_from(SUBAGENT_NAMES), max_size=3, unique=True)
a_meta = st.sampled_from(METAS)


@st.composite
def interactive_session(draw) -> dict:
    """{"main": bytes, "subagents": [(name, bytes, meta or None)]}."""
    files, listings = draw(ownership())
    n = 0

    def thread(prompt: bool) -> list:
        nonlocal n
        rows: list = [{"type": "user", "message": {"content": "question?"}}] if prompt else []
        for text in draw(structured_calls(files, listings)):
            n += 1
            rows += explore_pair(f"toolu_{n}", text)
        for _ in range(draw(st.integers(0, 2))):
            rows.append({"type": "assistant", "message": {"content": [{"type": "text", "text": draw(citing_answer(files))}]}})
        return rows

    fresh: list = []
    main = thread(True)
    main += [line for spec in draw(st.lists(event_lines(fresh), max_size=3)) for line in spec]
    main += [{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_agent", "name": "Task"}]}},
             {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_agent", "content": "done"}]}}]
    main += thread(False)
    subagents = []
    for name in draw(some_subagents):
        subagents.append((name, [encode(r, True, False) for r in thread(draw(st.booleans()))], draw(a_meta)))
    return {
        "main": b"\n".join(encode(r, draw(st.booleans()), False) for r in main) + b"\n",
        "subagents": [(name, b"\n".join(rows) + b"\n", meta) for name, rows, meta in subagents],
    }


# ---------------------------------------------------------------------------
# Comparison.


def citeledger_view(files: list[str], interactive: bool, globs: list[str]):
    if interactive:
        transcript = ClaudeInteractiveReader().read(files, DEFAULT.read_options())
    else:
        transcript = read_session(files, None, DEFAULT)
    result = score(transcript, DEFAULT)
    text = render_text(result)
    if globs:
        text += "\n" + render_envelope(envelope_view(result, globs))
    return text, session_dict(result), result, transcript.files


def blank_lines(files) -> int:
    """Lines citeledger skips silently as blank (the oracle counts them as skipped)."""
    count = 0
    for f in files:
        for raw in Path(f).read_bytes().split(b"\n"):
            body = raw[3:] if raw.startswith(BOM) else raw
            count += not body.strip()
    return count


def citations(result) -> tuple[list, list]:
    paths = tuple(f.path for f in result.files)
    cited = PathChannel(DEFAULT.options_for("path")).citations(result.answer, Envelope((), paths))
    return list(cited), SymbolChannel(DEFAULT.options_for("symbol")).citations(result.answer)


def escaped_paths(text: str, ref: dict) -> str:
    """The reference's block as citeledger writes it: a returned path's control characters
    escaped (docs/robustness.md, round four: a path with a newline forges no row); no other byte
    differs."""
    from citeledger.core import printable

    for path in sorted({s["path"] for c in ref["calls"] for s in c["sections"]}, key=len, reverse=True):
        if printable(path) != path:
            text = text.replace(path, printable(path))
    return text


def assert_same(case: dict, js: dict) -> None:
    text, ours, result, read_files = citeledger_view(case["files"], case["interactive"], case["answer"])
    ref = js["json"]
    where = f"for {case['files']}"
    assert result.answer == ref["answer"], f"answer text differs {where}"
    assert citations(result) == (ref["cited_paths"], ref["cited_symbols"]), f"citations differ {where}"
    assert text == escaped_paths(js["text"], ref), f"text block differs {where}"
    assert result.responses == ref["responses"]
    assert (ours["envelope"], ours["used"], ours["used_by_channel"]["path"]) == (ref["envelope"], ref["used"], ref["used_by_path"])
    if ours["status"] == "scored":
        assert (ours["efficiency"], ours["lower_bound"]) == (ref["efficiency"], ref["path_efficiency"])
    else:  # the reference prints its 0% in the text block (equal above); our JSON says unscored
        assert (ours["efficiency"], ours["lower_bound"]) == (None, None)
        assert result.efficiency == ref["efficiency"] and result.lower_bound == ref["path_efficiency"]
    assert (ours["files_returned"], ours["files_used"], ours["has_answer"]) == (ref["files_returned"], ref["files_used"], ref["has_answer"])
    assert [(c["envelope"], c["used"], [(f["path"], f["chars"]) for f in c["files"]]) for c in ours["calls"]] == [
        (c["envelope"], c["used"], [(s["path"], s["chars"]) for s in c["sections"]]) for c in ref["calls"]
    ]
    assert [(f["path"], f["chars"], f["calls"], f["channel"], f["evidence"]) for f in ours["files"]] == [
        (f["path"], f["chars"], f["calls"], f["credited"], f["evidence"]) for f in ref["files"]
    ]
    # Nothing is lost silently: every line the oracle skipped is blank or warned about.
    skipped = sum(1 for w in ours["warnings"] if w["message"].startswith("not JSON"))
    assert skipped + blank_lines(read_files) == ref["skipped_lines"]


def write_case(tmp: str, i: int, drawn, globs: list[str]) -> dict:
    if isinstance(drawn, dict):  # an interactive log and its subagents
        session = Path(tmp, f"s{i}.jsonl")
        session.write_bytes(drawn["main"])
        sub = Path(tmp, f"s{i}", "subagents")
        sub.mkdir(parents=True)
        for name, data, meta in drawn["subagents"]:
            (sub / name).write_bytes(data)
            if meta is not None:
                (sub / (name.removesuffix(".jsonl") + ".meta.json")).write_text(meta, encoding="utf-8")
        return {"files": [str(session)], "interactive": True, "answer": globs}
    names = []
    for j, data in enumerate(drawn):
        name = os.path.join(tmp, f"run-{i}.jsonl" if j == 0 else f"run-{i}.t{j + 1}.jsonl")
        Path(name).write_bytes(data)
        names.append(name)
    return {"files": names, "interactive": False, "answer": globs}


def run_batch(batch: list, oracle=oracle_batch) -> None:
    """`batch`: drawn sessions, each segments (list of bytes) or an interactive dict, or (drawn, globs)."""
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for i, item in enumerate(batch):
            drawn, globs = item if isinstance(item, tuple) else (item, [])
            cases.append(write_case(tmp, i, drawn, globs))
        for case, js in zip(cases, oracle(cases)):
            assert_same(case, js)


globs = st.lists(st.sampled_from(GLOBS), max_size=3)
any_session = st.one_of(
    session(), structured_session(), structured_session(), structured_session(), interactive_session(), interactive_session(),
)


@settings(max_examples=40)  # 40 batches of up to 8 sessions: up to 320 sessions a run (the suite stays under 90 s)
@given(st.lists(st.tuples(any_session, globs), min_size=1, max_size=8))
def test_generated_sessions_match_the_oracle(oracle_server, batch):
    run_batch(batch, oracle_server)


def test_real_and_smoke_fixtures_match_the_oracle():
    root = Path(__file__).parent.parent
    stream = sorted((root / "fixtures" / "real" / "stream").glob("*.jsonl"))
    sessions = [[str(p)] for p in stream if ".t" not in p.name.removesuffix(".jsonl")]
    sessions.append([str(root / "fixtures/real/stream/flask-views.jsonl"), str(root / "fixtures/real/stream/flask-views.t2.jsonl")])
    sessions.append([str(root / "oracle/smoke/run.jsonl"), str(root / "oracle/smoke/run.t2.jsonl")])
    cases = [{"files": s, "interactive": False, "answer": ["lib/**", "**/*.py"]} for s in sessions]
    cases.append({"files": [str(root / "oracle/smoke/interactive.jsonl")], "interactive": False, "answer": []})
    for log in sorted((root / "fixtures" / "real" / "interactive").glob("*/*.jsonl")):
        cases.append({"files": [str(log)], "interactive": True, "answer": ["lib/request?.js", "lib/*.js"]})
    for case, js in zip(cases, oracle_batch(cases)):
        assert_same(case, js)


# ---------------------------------------------------------------------------
# JSON.stringify of non-text content items: its length is charged to the file.


STRINGIFY = (
    "require('readline').createInterface({input: process.stdin, crlfDelay: Infinity}).on('line', (line) =>"
    " process.stdout.write(JSON.stringify(JSON.parse(line).map((l) => JSON.stringify(JSON.parse(l)))) + '\\n'));"
)


@pytest.fixture(scope="module")
def node_stringify():
    """Given JSON texts, what JSON.stringify(JSON.parse(text)) gives for each, from one node process."""
    server = NodeLines("-e", STRINGIFY)
    yield server.ask
    server.close()


@settings(max_examples=40)
@given(st.lists(json_value, min_size=1, max_size=20))
def test_js_stringify_matches_node(node_stringify, values):
    lines = [json.dumps(v).encode() for v in values]
    expected = node_stringify([line.decode() for line in lines])
    assert [js_stringify(decode_line(line)) for line in lines] == expected
