"""The read_after channel and the reads placed against explore calls.

Expected credits on the real transcripts are the hand-worked lists of
fixtures/READ_AFTER.md (tool_use ids copied from the transcripts); the
synthetic sessions are built here event by event, so every position and
thread is known from the test's own text.
"""

from __future__ import annotations

from pathlib import Path

from builders import EXPLORE, response, section, write_jsonl
from citeledger.channels.read_after import reads_by_call, reads_of
from citeledger.core.accountant import score
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.rules.loader import load_ruleset

REAL = Path(__file__).parent.parent / "fixtures" / "real" / "stream"
DEFAULT = load_ruleset("default")
REACTIONS = load_ruleset("reactions")


def read(path):
    return ClaudeStreamReader().read([str(path)])


def credited(result):
    return {f.path: f.verdict.channel for f in result.files if f.verdict.credited}


def placed(transcript, ruleset=REACTIONS):
    """(call number -> [(path, tool id)], call number -> [missed target]) under `ruleset`'s reading."""
    from citeledger.core import calls_of

    calls = calls_of(transcript.responses, ruleset)
    paths = tuple(dict.fromkeys(s.path for c in calls for s in c.sections if not s.meta))
    reads = reads_of(transcript.tool_uses, ("Read",), ("Grep", "Glob"))
    out = reads_by_call(calls, transcript.responses, reads, paths)
    return ({c.call: [(p, r.id) for p, r in c.returned] for c in out},
            {c.call: [r.target for r in c.misses] for c in out})


# ---------------------------------------------------------------- real transcripts (fixtures/READ_AFTER.md)


def test_express_read_after_credits_the_three_files_read_after_their_explore():
    t = read(REAL / "express-read-after.jsonl")
    base, alt = score(t, DEFAULT), score(t, REACTIONS)
    # Cited by path: lib/router/index.js, lib/view.js (lib/router/layer.js was never returned).
    assert {p for p, c in credited(base).items() if c == "path"} == {"lib/router/index.js", "lib/view.js"}
    # application.js: returned by #1, Read toolu_01oKrL... after it, never cited.
    assert credited(alt)["lib/application.js"] == "read_after"
    app = next(f for f in alt.files if f.path == "lib/application.js")
    assert app.verdict.evidence == "Read toolu_01oKrLWSp2MwraSIwHZD1g9y /tmp/proj/express/lib/application.js"
    # route.js was read only BEFORE the explore that returned it; response.js never.
    assert "lib/router/route.js" not in credited(alt)
    assert "lib/response.js" not in credited(alt)
    # Path and symbol are ranked first and unchanged: the floor and the default stay.
    assert alt.lower_bound == base.lower_bound
    assert alt.ladder[1][1] == base.efficiency
    assert alt.used - base.used == app.chars  # the third rung adds application.js, both calls' sections


def test_express_reads_placed_per_call_with_the_subagent_as_its_own_thread():
    returned, misses = placed(read(REAL / "express-read-after.jsonl"))
    assert returned == {
        1: [("lib/application.js", "toolu_01oKrLWSp2MwraSIwHZD1g9y"),
            ("lib/router/index.js", "toolu_01w1a08pAc1dbRvQV4ESAR5P")],
        # application.js is returned by #2 too, but read (3) before #2.
        2: [("lib/view.js", "toolu_01bWiOcZsWUxBb4Y7OZ1VveC")],
    }
    # layer.js: read after #1, returned by no explore; the Glob names a directory.
    assert misses == {1: ["/tmp/proj/express/lib/router/layer.js"], 2: []}


def test_flask_read_after_keeps_the_basename_trap_out():
    t = read(REAL / "flask-read-after.jsonl")
    returned, misses = placed(t)
    assert returned == {
        1: [("src/flask/wrappers.py", "toolu_01TIxnDJlUpDDppxsTxEbcQx"),
            ("src/flask/sessions.py", "toolu_01c22UuNcDNXtD80rAWs39sn")],
        2: [("src/flask/json/tag.py", "toolu_01rIBjdGRO9GjkHwd5IdZcxx")],
    }
    # sansio/app.py ends in app.py, but not in /src/flask/app.py (which #1 returned).
    assert misses == {1: ["/tmp/proj/flask/src/flask/sansio/app.py"], 2: []}
    alt = score(t, REACTIONS)
    assert credited(alt)["src/flask/wrappers.py"] == "read_after"
    assert "src/flask/app.py" not in credited(alt)


# ---------------------------------------------------------------- synthetic sessions


def use(tid, name, thread=None, msg=None, **given):
    return {"type": "assistant", "parent_tool_use_id": thread, "message": {"id": msg or f"m_{tid}", "content": [
        {"type": "tool_use", "id": tid, "name": name, "input": given}]}}


def result(tid, text, thread=None):
    return {"type": "user", "parent_tool_use_id": thread, "message": {"content": [
        {"type": "tool_result", "tool_use_id": tid, "content": [{"type": "text", "text": text}]}]}}


ENVELOPE = response(
    section("lib/a.js", " — alpha(function)", size=100),
    section("app.py", " — top(function)", size=100),
    section("src/app.py", " — inner(function)", size=100),
)


def test_same_message_parallel_read_and_other_threads_do_not_count(tmp_path):
    rows = [
        {"type": "system", "subtype": "init"},
        # A Read issued in the explore's own message, before its result: no reaction.
        use("e1", EXPLORE, msg="m1", query="q"),
        use("r0", "Read", msg="m1", file_path="/w/lib/a.js"),
        result("e1", ENVELOPE),
        result("r0", "..."),
        # A subagent reading src/app.py: another thread than the explore's.
        use("ag", "Agent"),
        use("r1", "Read", thread="ag", file_path="/w/src/app.py"),
        result("r1", "...", thread="ag"),
        result("ag", "done"),
        {"type": "result", "subtype": "success", "result": "No files named."},
    ]
    t = read(write_jsonl(tmp_path / "run.jsonl", rows))
    assert credited(score(t, REACTIONS)) == {}
    assert placed(t) == ({1: []}, {1: []})


def test_longest_returned_suffix_wins_and_searches_need_a_file_name(tmp_path):
    rows = [
        use("e1", EXPLORE, query="q"),
        result("e1", ENVELOPE),
        use("r1", "Read", file_path="/w/src/app.py"),      # names src/app.py, not app.py
        use("g1", "Grep", pattern="x", path="/w/lib"),      # a directory: no file
        use("g2", "Glob", pattern="*.js", path="/w/other/b.js"),  # a file nobody returned
        use("r2", "Read", file_path="C:\\w\\lib\\a.js"),   # backslashes read as slashes
        {"type": "result", "subtype": "success", "result": "Nothing cited."},
    ]
    t = read(write_jsonl(tmp_path / "run.jsonl", rows))
    assert credited(score(t, REACTIONS)) == {"src/app.py": "read_after", "lib/a.js": "read_after"}
    assert placed(t) == ({1: [("src/app.py", "r1"), ("lib/a.js", "r2")]}, {1: ["/w/other/b.js"]})
    # Under default nothing is credited: the channel is not ranked there.
    assert credited(score(t, DEFAULT)) == {}


def test_a_miss_is_listed_under_the_latest_call_of_its_thread(tmp_path):
    second = response(section("lib/b.js", " — beta(function)", size=80))
    rows = [
        use("r0", "Read", file_path="/w/lib/zero.js"),   # before any explore: follows no call
        use("e1", EXPLORE, query="q1"), result("e1", ENVELOPE),
        use("r1", "Read", file_path="/w/lib/one.js"),
        use("e2", EXPLORE, query="q2"), result("e2", second),
        use("r2", "Read", file_path="/w/lib/two.js"),
        use("r3", "Read", file_path="/w/lib/a.js"),        # returned by #1: credits it, no miss
        {"type": "result", "subtype": "success", "result": "See `beta`."},
    ]
    t = read(write_jsonl(tmp_path / "run.jsonl", rows))
    returned, misses = placed(t)
    assert misses == {1: ["/w/lib/one.js"], 2: ["/w/lib/two.js"]}
    assert returned == {1: [("lib/a.js", "r3")], 2: []}
    assert credited(score(t, REACTIONS)) == {"lib/b.js": "symbol", "lib/a.js": "read_after"}


def test_reactions_changes_only_the_ranking():
    assert REACTIONS.reader == DEFAULT.reader and REACTIONS.unit == DEFAULT.unit and REACTIONS.sources == DEFAULT.sources
    assert REACTIONS.channel_names == ("path", "symbol", "read_after")
    assert REACTIONS.channels[:2] == DEFAULT.channels


def test_interactive_subagent_file_is_its_own_thread(tmp_path):
    from citeledger.readers.claude_interactive import ClaudeInteractiveReader

    project = tmp_path / "proj"
    main = [
        {"type": "user", "message": {"role": "user", "content": "how?"}},
        use("ag", "Agent"),
        result("ag", "the subagent's summary"),
        # The main thread reads lib/a.js, which only the subagent's explore returned.
        use("r1", "Read", file_path="/w/lib/a.js"),
        {"type": "assistant", "message": {"id": "m9", "content": [{"type": "text", "text": "Done."}]}},
    ]
    write_jsonl(project / "s1.jsonl", main)
    sub = [use("e1", EXPLORE, query="q"), result("e1", ENVELOPE), use("r2", "Read", file_path="/w/src/app.py")]
    write_jsonl(project / "s1" / "subagents" / "agent-x.jsonl", sub)
    (project / "s1" / "subagents" / "agent-x.meta.json").write_text('{"toolUseId": "ag"}')
    t = ClaudeInteractiveReader().read([str(project / "s1.jsonl")])
    # The subagent's events carry parent "ag" (its meta file): its own Read
    # credits src/app.py; the main thread's Read of lib/a.js is another thread.
    assert credited(score(t, REACTIONS)) == {"src/app.py": "read_after"}
    assert placed(t) == ({1: [("src/app.py", "r2")]}, {1: []})


def test_tool_uses_keep_only_string_inputs_and_their_positions(tmp_path):
    rows = [
        {"type": "system", "subtype": "init"},
        use("a", "Read", file_path=7),                                  # a number names no file
        {"type": "assistant", "message": {"id": "m", "content": [
            {"type": "tool_use", "id": "b", "name": "Grep", "input": "not an object"}]}},
        use("c", "Glob", thread="ag", pattern="*.js", path="/w/lib"),
    ]
    t = read(write_jsonl(tmp_path / "run.jsonl", rows))
    got = [(u.name, u.id, u.thread, u.order, u.file_path, u.path, u.pattern, u.origin.line) for u in t.tool_uses]
    # order counts every line read (0-based): the init line is 0
    assert got == [("Read", "a", None, 1, None, None, None, 2), ("Grep", "b", None, 2, None, None, None, 3),
                   ("Glob", "c", "ag", 3, None, "/w/lib", "*.js", 4)]
    (only,) = reads_of(t.tool_uses, ("Read",), ("Grep", "Glob"))  # the Read without a string file_path is none
    assert (only.target, only.search) == ("/w/lib", True)
