"""Broken and hostile transcripts: each gets a warning or error naming file and
line, nothing crashes, what is scored still equals the oracle, and memory
stays bounded on a 200 MB line. Small inputs live in tests/fixtures/malformed/
(see its README); big ones are made here in tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from citeledger.cli import main

from test_differential import oracle_batch

MALFORMED = Path(__file__).parent.parent / "fixtures" / "malformed"
EXPLORE = "mcp__codegraph__codegraph_explore"

# file -> (exit status, substrings that must appear in stderr, in order)
EXPECTED = {
    "truncated-last-line.jsonl": (1, [":5: not JSON (truncated), skipped"]),
    "binary-garbage.jsonl": (2, ["binary-garbage.jsonl: not a Claude Code transcript"]),
    "invalid-utf8.jsonl": (1, [":4: not JSON"]),
    "wrong-types.jsonl": (1, [
        ":3: explore tool_result content is a number, not text, counted as its JSON",  # spec section 1
        ":5: explore tool_result content is null",
        ":7: explore tool_result content is an object",
        ":8: assistant event's message.content is a string, not a list of blocks, skipped",
        ":9: user event's message.content is an object",
        ":10: assistant event without a message object (a list), skipped",
        ":12: content block 0 is null, not an object, ignored",
        ":12: content block 1 is a number",
        ":12: content block 2 is a string",
    ]),
    "result-before-use.jsonl": (1, [":2: tool_result for unknown tool_use id 'toolu_1'"]),
    "duplicate-ids.jsonl": (1, [":4: tool_use id 'toolu_1' used again (first at ", ":8: another explore result for tool_use id 'toolu_2'"]),
    "missing-message.jsonl": (1, [":2: assistant event without a message object (missing)", ":3: user event without a message object"]),
    "empty.jsonl": (1, [":0: empty file"]),
}


def test_every_fixture_is_listed():
    assert sorted(p.name for p in MALFORMED.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_damage_is_named_with_file_and_line(name, capsys):
    path = str(MALFORMED / name)
    status, needles = EXPECTED[name]
    assert main(["score", path]) == status
    err = capsys.readouterr().err
    position = 0
    for needle in needles:
        found = err.find(needle, position)
        assert found != -1, f"{needle!r} not in:\n{err}"
        position = found
    for line in err.splitlines():  # every message names the file
        assert line.startswith(("citeledger: warning: " + path, "citeledger: error: " + path)), line


def test_warnings_are_in_the_json_too(capsys):
    path = str(MALFORMED / "wrong-types.jsonl")
    assert main(["score", "--json", path]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(w["file"], w["line"]) for w in data["warnings"]][:3] == [(path, 3), (path, 5), (path, 7)]
    assert data["status"] == "scored" and data["files_returned"] == 2


def test_what_is_scored_still_equals_the_oracle(capsys):
    names = [n for n, (status, _) in sorted(EXPECTED.items()) if status != 2]
    reference = oracle_batch([[str(MALFORMED / n)] for n in names])
    for name, js in zip(names, reference):
        main(["score", str(MALFORMED / name)])
        assert capsys.readouterr().out == js["text"], name


# ---------------------------------------------------------------------------
# Generated at test time.


def events(answer="The work is in lib/a.js.") -> list[bytes]:
    text = "**`lib/a.js`** — run(function)\n```js\n1  run()\n```\n\n> Use these."
    return [
        orjson.dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1", "name": EXPLORE}]}}),
        orjson.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": text}]}}),
        orjson.dumps({"type": "result", "result": answer}),
    ]


def peak_rss_mb(args: list[str]) -> tuple[int, str, float]:
    """Run the CLI in a fresh interpreter; its exit status, stderr and peak RSS."""
    # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across fork+exec, so a child
    # of a big pytest process would report the parent's peak. VmHWM belongs to
    # the address space exec created. (Linux, as CI; ru_maxrss elsewhere.)
    code = (
        "import resource, sys\n"
        "from citeledger.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "sys.stdout.flush()\n"
        "try:\n"
        "    hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1]\n"
        "except OSError:\n"
        "    hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print('RSS', hwm, file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300)
    rss_line = [l for l in proc.stderr.splitlines() if l.startswith("RSS ")][-1]
    return proc.returncode, proc.stderr, int(rss_line.split()[1]) / 1024  # both in KiB on Linux


def test_a_200_mb_line_is_skipped_with_bounded_memory(tmp_path):
    path = tmp_path / "huge.jsonl"
    use, result_line, answer = events()
    with open(path, "wb") as fh:
        fh.write(use + b"\n" + result_line + b"\n")
        fh.write(b'{"type":"user","message":{"content":[{"type":"text","text":"')
        block = b"x" * (1 << 20)
        for _ in range(200):
            fh.write(block)
        fh.write(b'"}]}}\n' + answer + b"\n")
    assert path.stat().st_size > 200 << 20
    status, err, rss = peak_rss_mb(["score", str(path)])
    assert status == 1
    assert f"{path}:3: line longer than 67,108,864 bytes, skipped" in err
    # The line is never held whole: the reader keeps at most the 64 MiB limit.
    assert rss < 150, f"peak RSS {rss:.0f} MB for a 200 MB line"
    # And the bound follows the ruleset's limit.
    small = tmp_path / "small-limit.yaml"
    small.write_text("extends: default\nreader:\n  max_line_bytes: 1048576\n")
    status, err, rss_small = peak_rss_mb(["score", "--ruleset", str(small), str(path)])
    assert status == 1 and f"{path}:3: line longer than 1,048,576 bytes" in err
    assert rss_small < 90, f"peak RSS {rss_small:.0f} MB with a 1 MiB line limit"


def _deep(depth: int) -> bytes:
    item = b"[" * depth + b"]" * depth
    return (
        b'{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":'
        b'["**`lib/a.js`** x\\n", ' + item + b"]}]}}"
    )


def test_nesting_the_decoder_reads_is_stringified_as_javascript_does(tmp_path, capsys):
    # 1000 levels: orjson reads it; its compact JSON (charged to lib/a.js) must
    # not hit Python's recursion limit.
    use, _, answer = events()
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"\n".join([use, _deep(1000), answer]) + b"\n")
    assert main(["score", str(path)]) == 0
    assert capsys.readouterr().out == oracle_batch([[str(path)]])[0]["text"]


def test_nesting_beyond_the_decoder_is_a_warning(tmp_path, capsys):
    use, _, answer = events()
    path = tmp_path / "deeper.jsonl"
    path.write_bytes(b"\n".join([use, _deep(100_000), answer]) + b"\n")
    assert main(["score", str(path)]) == 1
    captured = capsys.readouterr()
    assert f"{path}:2: not JSON (nested too deeply), skipped" in captured.err
    assert captured.out.startswith("Explore allocation: no codegraph_explore responses")


def test_invalid_utf8_reads_as_javascript_does(tmp_path, capsys):
    # Invalid bytes inside strings become U+FFFD (one per maximal bad subpart,
    # like Node's decoder); section sizes count them.
    use, _, answer = events()
    bad = (b'{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":'
           b'"**`lib/a.js`** x\\n\xff\xfe\xed\xa0\x80 \xf0\x9f\x98 \xc3"}]}}')
    path = tmp_path / "bad-utf8.jsonl"
    path.write_bytes(b"\n".join([use, bad, answer]) + b"\n")
    assert main(["score", str(path)]) == 0
    assert capsys.readouterr().out == oracle_batch([[str(path)]])[0]["text"]


# An unreadable file, for root too (CI runs as root, and root reads chmod 000
# files): a dangling symlink fails to open with ENOENT, a directory with
# EISDIR, whoever runs the test.


def test_a_dangling_symlink_is_an_input_error(tmp_path, capsys):
    link = tmp_path / "gone.jsonl"
    os.symlink(tmp_path / "nowhere.jsonl", link)
    assert main(["score", str(link)]) == 2
    assert f"citeledger: error: {link}: no such file" in capsys.readouterr().err


def test_a_directory_named_like_a_transcript_is_an_input_error(tmp_path, capsys):
    folder = tmp_path / "run.jsonl"
    folder.mkdir()
    assert main(["score", str(folder)]) == 2
    assert f"citeledger: error: {folder}: is a directory" in capsys.readouterr().err


def test_one_bad_segment_names_that_segment(tmp_path, capsys):
    # A killed run can leave a later segment with nothing readable: the session
    # is still scored from its other segments, and the bad one is named line by line.
    good = tmp_path / "run.jsonl"
    good.write_bytes(b"\n".join(events()) + b"\n")
    bad = tmp_path / "run.t2.jsonl"
    bad.write_bytes(b"\x00\x01garbage\n\xff\n")
    assert main(["score", str(good), str(bad)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("Explore allocation — share of returned bytes")
    assert f"citeledger: warning: {bad}:1: not JSON" in err and f"{bad}:2: not JSON" in err
    assert f"citeledger: warning: {bad}:0: no events (nothing readable)" in err
    # Alone (no run.jsonl beside it to read it with), the same bytes are no transcript at all.
    alone = tmp_path / "alone" / "run.t2.jsonl"
    alone.parent.mkdir()
    alone.write_bytes(bad.read_bytes())
    assert main(["score", str(alone)]) == 2
    assert f"citeledger: error: {alone}: not a Claude Code transcript" in capsys.readouterr().err


def test_killed_segment_with_one_partial_line(tmp_path, capsys):
    good = tmp_path / "run.jsonl"
    good.write_bytes(b"\n".join(events()) + b"\n")
    killed = tmp_path / "run.t2.jsonl"
    killed.write_bytes(b'{"type": "assistant", "message": {"content": [{"type": "te')
    assert main(["score", str(good), str(killed)]) == 1
    assert f"{killed}:1: not JSON (truncated), skipped" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# A sweep over all of it: every session reported, each with its status.


def test_a_sweep_reports_every_session_with_its_status(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for p in MALFORMED.glob("*.jsonl"):
        (corpus / p.name).write_bytes(p.read_bytes())
    os.symlink(corpus / "nowhere", corpus / "gone.jsonl")  # unreadable, for root too
    use, _, answer = events()
    (corpus / "deeper.jsonl").write_bytes(b"\n".join([use, _deep(100_000), answer]) + b"\n")
    assert main(["sweep", str(corpus), "--json", "--quiet", "--jobs", "2"]) == 1
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    status = {r["session"]: (r["status"], r["reason"]) for r in rows if r["record"] == "session"}
    expected = {name: "scored" for name in EXPECTED}
    expected.update({"binary-garbage.jsonl": "unreadable", "empty.jsonl": "no-explore",
                     "gone.jsonl": "unreadable", "deeper.jsonl": "no-explore"})  # its one result was too deep
    assert {name: s for name, (s, _) in status.items()} == expected
    assert "no such file" in status["gone.jsonl"][1]
    assert "not a Claude Code transcript" in status["binary-garbage.jsonl"][1]
    assert f"{corpus}/deeper.jsonl:2: not JSON (nested too deeply)" in captured.err
