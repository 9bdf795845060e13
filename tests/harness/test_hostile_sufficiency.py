"""Hostile input, round four (issue 32 item 3): sufficiency at scale, by CPU time of two sizes."""

from __future__ import annotations

from builders import explored, response, section, use, write_jsonl
from cpu_time import grows_linearly

from citeledger.engine.reading import read_session
from citeledger.harness.sufficiency import Returned, sufficiency
from citeledger.harness.shell import same_file
from citeledger.rules import compiled


def _transcript(tmp_path, name, rows):
    path = write_jsonl(tmp_path / f"{name}.jsonl", rows)
    return read_session([str(path)], None, compiled.load("default"))


def _each_explore_then_a_read(n):
    rows = []
    for i in range(n):
        rows += explored(f"t{i}", "q", response(section(f"lib/f{i}.js", body="x\n")), message=f"m{i}")
        rows.append(use(f"r{i}", "Read", {"file_path": f"/repo/lib/f{i // 2}.js"}, message=f"n{i}"))
    return rows


def _explores_in_one_message(n):
    return [row for i in range(n) for row in
            explored(f"t{i}", "q", response(section(f"lib/f{i}.js", body="x\n")), message="m")]


def test_n_explore_calls_each_followed_by_a_read_are_judged_in_linear_time(tmp_path):
    def make(n):
        transcript = _transcript(tmp_path, f"reads{n}", _each_explore_then_a_read(n))
        return lambda: sufficiency(transcript, "codegraph_explore")

    # From 2,000: at 1,000 the judging is already at the edge of its per-call costs (1,000 -> 4,000
    # measured 6.1x, 2,000 -> 8,000 3.4x); a rescan per read is 16x.
    linear, small, large = grows_linearly(make, 2000)
    assert linear, (small, large)
    judged = sufficiency(_transcript(tmp_path, "few", _each_explore_then_a_read(4)), "codegraph_explore")
    # Read f0 after t0 (returned by it), f0 after t1 and f1 after t2/t3 (returned earlier).
    assert [c.next for c in judged.calls] == [
        "Read f0.js", "Read f0.js (returned by an earlier explore)",
        "Read f1.js (returned by an earlier explore)", "Read f1.js (returned by an earlier explore)"]


def test_n_explore_calls_in_one_assistant_message_are_judged_in_linear_time(tmp_path):
    def make(n):
        transcript = _transcript(tmp_path, f"one{n}", _explores_in_one_message(n))
        return lambda: sufficiency(transcript, "codegraph_explore")

    linear, small, large = grows_linearly(make, 2000)
    assert linear, (small, large)
    judged = sufficiency(_transcript(tmp_path, "few", _explores_in_one_message(3)), "codegraph_explore")
    assert [c.bucket for c in judged.calls] == ["sufficient"] * 3  # nothing after the message decides


def test_the_returned_file_index_answers_as_same_file_does():
    earlier = ["lib/a.js", "/repo/src/b.py", "./c.ts", "d\\e.go", "x/", "deep/er/f.rs"]
    index = Returned()
    index.extend(earlier)
    reads = ["lib/a.js", "a.js", "/other/lib/a.js", "xlib/a.js", "src/b.py", "repo/src/b.py", "b.py",
             "c.ts", "/c.ts", "e.go", "d/e.go", "", "./", "x/", "er/f.rs", "r/f.rs", "f.rs/", "lib"]
    for path in reads:
        assert index.has(path) == any(same_file(path, f) for f in earlier), path
