"""EventWalker over the lines as they are read: pruned to walker.EVENT_KEYS, or whole.

EVENT_KEYS is the one declaration of what the walker reads; typed decoding
keeps nothing else. A key the walker reads but the declaration lacks would be
missing from every event, so each session here must give the same Transcript
(every record, every warning in order) read pruned and read whole, on every
event shape the walker singles out and their near misses.
"""

from __future__ import annotations

from pathlib import Path
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.core.errors import InputError
from citeledger.readers import claude_stream
from citeledger.core.reader import ReadOptions
from citeledger.readers.claude_interactive import ClaudeInteractiveReader
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.infra.jsonl import Line, read_jsonl
from citeledger.readers.walker import EVENT_KEYS, EventWalker
from test_jsonl import KEYS, encode, hostile_line, value

ROOT = Path(__file__).resolve().parent.parent.parent

# Shapes the walker's fast paths single out, and their near misses.
odd_block = st.one_of(
    st.fixed_dictionaries({"type": st.just("tool_use")}, optional={
        "id": st.sampled_from(["t1", "t2", 5, 5.0, 1, True, None, [], {}, 2 ** 70]),
        "name": st.sampled_from(["mcp__codegraph__codegraph_explore", "codegraph_explore", "Read", None, 3, []]),
        "input": st.one_of(value, st.fixed_dictionaries({}, optional=dict.fromkeys(
            ["query", "file_path", "path", "pattern", "limit"], value)))}),
    st.fixed_dictionaries({"type": st.just("tool_result")}, optional={
        "tool_use_id": st.sampled_from(["t1", "t2", 5, 5.0, 1, True, None, [], 2 ** 70]),
        "is_error": st.sampled_from([None, False, True, 0, 1, 0.0, "", "x", [], {}]),
        "content": st.one_of(value, st.lists(st.one_of(value, st.fixed_dictionaries({}, optional={
            "type": st.just("text"), "text": value})), max_size=3))}),
    st.fixed_dictionaries({"type": st.just("text")}, optional={"text": value}),
    st.dictionaries(st.sampled_from(KEYS), value, max_size=3),
    value,
)
odd_event = st.fixed_dictionaries(
    {"type": st.sampled_from(["assistant", "user", "result", "system", 7, None, ["user"]])},
    optional={"message": st.one_of(value, st.fixed_dictionaries({}, optional={"content": st.one_of(
        st.lists(odd_block, max_size=4), value)})), "result": value,
        "parent_tool_use_id": st.sampled_from([None, "t1", 3, []]), "usage": value, "sessionId": value},
)


@st.composite
def session_file(draw):
    lines = [encode(e, draw(st.booleans())) for e in draw(st.lists(odd_event, max_size=8))]
    if lines and draw(st.booleans()):
        lines[draw(st.integers(0, len(lines) - 1))] = draw(hostile_line())
    return b"\n".join(lines) + b"\n"


def read_session(reader, paths, options=ReadOptions(), whole=False):
    """The reader's Transcript (or its InputError), lines pruned or, with `whole`, every key read."""
    try:
        with mock.patch.object(claude_stream, "EVENT_KEYS", None if whole else EVENT_KEYS):
            return reader.read(paths, options)
    except InputError as exc:
        return ("InputError", exc.file, exc.line, exc.message)


def walk(lines, headless, parent):
    walker = EventWalker("codegraph_explore", headless=headless)
    walker.new_turn()
    for line in lines:
        kind = walker.feed("f.jsonl", line, parent)
        assert kind == (line.value.get("type") if isinstance(line.value, dict) else None)
    return walker.transcript("s", ("f.jsonl",), "r", turns=walker.prompts), walker.turn


@settings(max_examples=40, deadline=None)
@given(st.lists(session_file(), min_size=1, max_size=2), st.integers(0, 1))
def test_a_stream_session_reads_alike_pruned_and_whole(tmp_path_factory, files, small):
    folder = tmp_path_factory.mktemp("s")
    paths = []
    for i, data in enumerate(files, 1):
        p = folder / (f"run.t{i}.jsonl" if i > 1 else "run.jsonl")
        p.write_bytes(data)
        paths.append(str(p))
    options = ReadOptions(max_line_bytes=400) if small else ReadOptions()
    got = read_session(ClaudeStreamReader(), paths, options)
    assert got == read_session(ClaudeStreamReader(), paths, options, whole=True)
    assert repr(got) == repr(read_session(ClaudeStreamReader(), paths, options, whole=True))


@settings(max_examples=40, deadline=None)
@given(session_file(), session_file())
def test_an_interactive_session_reads_alike_pruned_and_whole(tmp_path_factory, main, sub):
    folder = tmp_path_factory.mktemp("i")
    log = folder / "abc.jsonl"
    log.write_bytes(main)
    (folder / "abc" / "subagents").mkdir(parents=True)
    (folder / "abc" / "subagents" / "agent-1.jsonl").write_bytes(sub)
    (folder / "abc" / "subagents" / "agent-1.meta.json").write_bytes(b'{"toolUseId":"t1"}')
    got = read_session(ClaudeInteractiveReader(), [str(log)])
    assert got == read_session(ClaudeInteractiveReader(), [str(log)], whole=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(hostile_line(), st.builds(encode, odd_event)), max_size=8), st.booleans(),
       st.sampled_from([None, "t1"]))
def test_the_walker_walks_pruned_lines_as_whole_ones(tmp_path_factory, raw_lines, headless, parent):
    path = tmp_path_factory.mktemp("w") / "f.jsonl"
    path.write_bytes(b"\n".join(raw_lines) + b"\n")
    pruned = list(read_jsonl(str(path), [], 1 << 20, EVENT_KEYS))
    whole = list(read_jsonl(str(path), [], 1 << 20))
    assert [(line.number, line.bom) for line in pruned] == [(line.number, line.bom) for line in whole]
    assert walk(pruned, headless, parent) == walk(whole, headless, parent)


def test_every_fixture_file_walks_alike_pruned_and_whole():
    files = sorted((ROOT / "tests" / "fixtures").rglob("*.jsonl"))
    assert len(files) > 50
    walked = 0
    for path in files:
        pruned = list(read_jsonl(str(path), [], 64 << 20, EVENT_KEYS))
        whole = list(read_jsonl(str(path), [], 64 << 20))
        for headless in (True, False):
            got = walk(pruned, headless, None)
            assert got == walk(whole, headless, None), path
            walked += len(got[0].responses)
    assert walked > 100  # the fixtures' explore responses were found


def test_every_fixture_session_reads_alike_pruned_and_whole():
    from citeledger.corpus import discover
    from citeledger.core.plugins import readers

    known = readers()
    refs, _ = discover([str(ROOT / "tests" / "fixtures")])
    assert len(refs) > 50
    for ref in refs:
        reader = known[ref.reader]()
        got = read_session(reader, list(ref.files))
        assert got == read_session(reader, list(ref.files), whole=True), ref.files


def test_an_event_pruned_keeps_what_the_walker_reads():
    line = Line(1, {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1",
                    "name": "mcp__codegraph__codegraph_explore", "input": {"query": "q", "limit": 3}}]}}, False)
    walker = EventWalker("codegraph_explore")
    walker.feed("f", line)
    (use,) = walker.tool_uses
    assert (use.name, use.id, use.query) == ("mcp__codegraph__codegraph_explore", "t1", "q")


def test_one_record_for_every_kept_tool_result(tmp_path):
    """An explore response and a Read result are one kind of record, with the same fields
    filled: the explore tool's go to `responses`, the kept tools' to `tool_results`."""
    from builders import EXPLORE, answer_to, response, section, use, write_jsonl
    from citeledger.core import ToolResult
    from citeledger.rules.loader import load_ruleset

    text = response(section("lib/a.js"))
    path = write_jsonl(tmp_path / "run.jsonl", [
        use("t1", EXPLORE, {"query": "q"}), answer_to("t1", text),
        use("t2", "Read", {"file_path": "lib/a.js"}, thread="t0"), answer_to("t2", "1\tx\n", thread="t0"),
        {"type": "result", "subtype": "success", "result": "lib/a.js"},
    ])
    t = ClaudeStreamReader().read([str(path)], load_ruleset("retrieval").read_options())
    (explored,), (read,) = t.responses, t.tool_results
    assert type(explored) is type(read) is ToolResult
    assert (explored.name, explored.blocks, explored.tool_use_id, explored.parent_tool_use_id) == (EXPLORE, (text,), "t1", None)
    assert (read.name, read.blocks, read.tool_use_id, read.parent_tool_use_id) == ("Read", ("1\tx\n",), "t2", "t0")
    assert (explored.origin.line, explored.tool_use_origin.line, read.origin.line, read.tool_use_origin.line) == (2, 1, 4, 3)
    assert explored.use.query == "q" and read.use.file_path == "lib/a.js" and explored.order < read.order
    # Read without a ruleset that reads it: no tool result kept; the explore tool's always.
    plain = ClaudeStreamReader().read([str(path)])
    assert plain.responses == t.responses and plain.tool_results == ()


def test_the_explore_tool_is_the_reading_options(tmp_path):
    """Whose results are explore responses (and explore answers) is the reading's tool: another
    tool's name keeps none of codegraph's, and a reading without one keeps none at all."""
    import attrs

    from builders import answer_to, response, section, use, write_jsonl

    text = response(section("lib/a.js"))
    path = write_jsonl(tmp_path / "run.jsonl", [use("t1", "mcp__acme__acme_explore", {"query": "q"}),
                                               answer_to("t1", text)])
    mine = ClaudeStreamReader().read([str(path)], attrs.evolve(ReadOptions(), explore_tool="acme_explore"))
    assert [r.blocks for r in mine.responses] == [(text,)] and len(mine.explore_answers) == 1
    for options in (ReadOptions(), attrs.evolve(ReadOptions(), explore_tool=None)):
        other = ClaudeStreamReader().read([str(path)], options)
        assert other.responses == () and other.explore_answers == ()


def test_a_numeric_id_past_64_bits_reads_alike_pruned_and_whole(tmp_path):
    # Pruned decoding keeps such an integer an int, whole decoding a double (infra/jsonl.Keys):
    # the id's text is JavaScript's String() of the number either way.
    path = tmp_path / "run.jsonl"
    path.write_text('{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": 1180591620717411303424}]}}\n')
    pruned, whole = (read_session(ClaudeStreamReader(), [str(path)], whole=w) for w in (False, True))
    assert pruned == whole and pruned.tool_uses[0].id == "1.1805916207174113e+21"
