"""The fast EventWalker against its frozen predecessor (tests/walker_reference.py).

Both walk the same decoded lines, headless and interactive, with and without
a parent override; their Transcripts (every record, every warning in order)
must be equal (and their prompt and turn counts), and feed must return each
event's `type`.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import walker_reference
from citeledger.core.readers.jsonl import Line, read_jsonl
from citeledger.core.readers.walker import EVENT_KEYS, EventWalker
from test_scan import KEYS, encode, hostile_line, session_event, value

ROOT = Path(__file__).resolve().parent.parent

# Shapes the fast paths single out, and their near misses.
odd_block = st.one_of(
    st.fixed_dictionaries({"type": st.just("tool_use")}, optional={
        "id": st.sampled_from(["t1", "t2", 5, 5.0, 1, True, None, [], {}, 2 ** 70]),
        "name": st.sampled_from(["mcp__codegraph__codegraph_explore", "codegraph_explore", "Read", None, 3, []]),
        "input": st.one_of(value, st.fixed_dictionaries({}, optional=dict.fromkeys(
            ["query", "file_path", "path", "pattern"], value)))}),
    st.fixed_dictionaries({"type": st.just("tool_result")}, optional={
        "tool_use_id": st.sampled_from(["t1", "t2", 5, 5.0, 1, True, None, [], 2 ** 70]),
        "is_error": st.sampled_from([None, False, True, 0, 1, 0.0, float("nan"), "", "x", [], {}]),
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
        "parent_tool_use_id": st.sampled_from([None, "t1", 3, []])},
)
lines = st.lists(st.tuples(st.one_of(odd_event, session_event, value), st.booleans()), max_size=12)


def walk(walker_class, events, headless, parent, check_kinds=False):
    walker = walker_class("codegraph_explore", headless=headless)
    walker.new_turn()
    for number, (event, bom) in enumerate(events, 1):
        kind = walker.feed("f.jsonl", Line(number, event, bom), parent)
        if check_kinds:
            assert kind == (event.get("type") if isinstance(event, dict) else None)
    return walker.transcript("s", ("f.jsonl",), "r", turns=walker.prompts), walker.turn


@settings(max_examples=400, deadline=None)
@given(lines, st.booleans(), st.sampled_from([None, "t1"]))
def test_the_walker_is_its_reference(events, headless, parent):
    got = walk(EventWalker, events, headless, parent, check_kinds=True)
    want = walk(walker_reference.EventWalker, events, headless, parent)
    assert got == want
    assert repr(got) == repr(want)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(hostile_line(), st.builds(encode, odd_event)), max_size=8), st.booleans())
def test_the_walker_is_its_reference_on_read_lines(tmp_path_factory, raw_lines, headless):
    path = tmp_path_factory.mktemp("w") / "f.jsonl"
    path.write_bytes(b"\n".join(raw_lines) + b"\n")
    read = [(line.value, line.bom) for line in read_jsonl(str(path), [], 1 << 20, EVENT_KEYS)]
    assert walk(EventWalker, read, headless, None) == walk(walker_reference.EventWalker, read, headless, None)


def test_every_fixture_file_walks_as_the_reference():
    files = sorted((ROOT / "tests" / "fixtures").rglob("*.jsonl"))
    assert len(files) > 50
    for path in files:
        read = [(line.value, line.bom) for line in read_jsonl(str(path), [], 64 << 20, EVENT_KEYS)]
        for headless in (True, False):
            got = walk(EventWalker, read, headless, None)
            assert got == walk(walker_reference.EventWalker, read, headless, None), path
