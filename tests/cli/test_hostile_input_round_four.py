"""Hostile input, round four (issue 32, the items outside the readers): each test is named for
what the attacker did. The commands run in a subprocess under the round-one memory cap and hang
guard (test_hostile_input.run); scale cases compare the CPU time of two input sizes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import explored, response, section, write_jsonl
from test_hostile_input import err, run

FIFO_REFUSED = "not a regular file (a FIFO), not read"


def _session(path: Path, *paths: str, answer: str = "see lib/a.js") -> Path:
    rows = explored("t1", "q", response(*(section(p, body="x\n") for p in paths)))
    return write_jsonl(path, [*rows, {"type": "result", "subtype": "success", "result": answer}])


@pytest.mark.parametrize("command", ["score", "explain"])
@pytest.mark.parametrize("fifo_first", [False, True])
def test_a_fifo_among_the_files_given_is_refused_as_a_lone_fifo_is(tmp_path, command, fifo_first):
    given = _session(tmp_path / "run.jsonl", "lib/a.js")
    fifo = tmp_path / "other.jsonl"
    os.mkfifo(fifo)
    files = [fifo, given] if fifo_first else [given, fifo]
    result = run(command, *files, timeout=60)  # before: blocked reading the FIFO's session id
    assert result.returncode == 2
    assert err(result) == f"citeledger: error: {fifo}: {FIFO_REFUSED}\n"


def _sessions(root: Path, count: int, files: int) -> Path:
    root.mkdir()
    for s in range(count):
        _session(root / f"run{s}.jsonl", *(f"lib/d{s}/f{i}.js" for i in range(files)), answer="see lib/d1/f1.js")
    return root


def test_a_reader_that_leaves_after_ten_bytes_of_a_sweep_ends_it_quietly_every_time(tmp_path):
    # 4x a Linux pipe's 64 KiB: the reader leaves while a write is under way. Issue 44 made that
    # no error (as `git log | head`): exit 0 and not a word, every time, however the write was cut.
    corpus = _sessions(tmp_path / "corpus", 40, 200)
    for _ in range(5):
        proc = subprocess.Popen([sys.executable, "-m", "citeledger.cli", "sweep", "-q", "--json", str(corpus)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        head = proc.stdout.read(10)
        proc.stdout.close()  # as `| head -c 10` does
        stderr = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 0, stderr
        assert head == b'{"record":'
        assert stderr == ""


TITLE = "\x1b]0;owned\x07"  # OSC: a terminal would set its title (OSC 52 would write the clipboard)
ESCAPED_TITLE = "\\x1b]0;owned\\x07"


def _hostile_names(tmp_path: Path) -> Path:
    from builders import use

    rows = [
        *explored("t1", f"find {TITLE}", response(section(f"lib/{TITLE}a.js", body="x\n"),
                                                  section("lib/b.js\n  * 100.0%  99999  forged.js", body="x\n"))),
        use("r1", "Read", {"file_path": f"/repo/\x1b[2J{TITLE}c.js"}, message="m2"),
        {"type": "result", "subtype": "success", "result": "see lib/b.js"},
    ]
    return write_jsonl(tmp_path / "run.jsonl", rows)


@pytest.mark.parametrize("args", [["score"], ["score", "--envelope", "--answer", "lib/*"], ["score", "--sufficiency"],
                                  ["explain"], ["explain", "--sufficiency"]])
def test_escape_sequences_in_returned_paths_and_read_paths_reach_no_terminal(tmp_path, args):
    result = run(*args, _hostile_names(tmp_path))
    assert result.returncode in (0, 1), err(result)
    out = result.stdout.decode()
    assert not any(c in out for c in "\x1b\x07\r"), out  # none raw
    assert ESCAPED_TITLE in out  # written as escapes, still readable
    assert "forged.js" in out and not any(line.lstrip().startswith("* 100.0%") for line in out.splitlines())
    assert "lib/b.js\\n  * 100.0%" in out  # the newline is an escape inside its one row


def test_escape_sequences_in_a_compare_group_and_session_name_reach_no_terminal(tmp_path):
    for side in ("base", "new"):
        folder = tmp_path / side / f"g{TITLE}"
        folder.mkdir(parents=True)
        _session(folder / "r1.jsonl", "lib/a.js")
    result = run("compare", "-q", "-j", "1", tmp_path / "base", tmp_path / "new")
    out = result.stdout.decode()
    assert result.returncode in (0, 1), err(result)
    assert "\x1b" not in out and "\x07" not in out and ESCAPED_TITLE in out


def test_a_warning_naming_a_file_with_escape_sequences_is_escaped(tmp_path):
    path = write_jsonl(tmp_path / f"w{TITLE}.jsonl", [{"type": "assistant"}])
    (tmp_path / "bad").write_text("")
    with open(path, "a") as fh:
        fh.write("not json\n")
    result = run("score", path)
    assert "\x1b" not in err(result) and ESCAPED_TITLE in err(result)


def test_file_names_a_spreadsheet_would_run_as_formulas_are_neutralised_in_csv(tmp_path):
    group = tmp_path / "corpus"
    group.mkdir()
    _session(group / '=HYPERLINK("x")-1.jsonl', "lib/a.js")
    out, raw = tmp_path / "out", tmp_path / "raw"
    assert run("sweep", "-q", "--out", out, group).returncode == 0
    assert run("sweep", "-q", "--csv-raw", "--out", raw, group).returncode == 0
    import csv

    row = next(csv.DictReader((out / "sessions.csv").open(newline="")))
    assert row["session"] == "'=HYPERLINK(\"x\")-1.jsonl"
    assert row["efficiency"] == "1.0" and not row["turns"].startswith("'")  # numbers stay numbers
    raw_row = next(csv.DictReader((raw / "sessions.csv").open(newline="")))
    assert raw_row["session"] == '=HYPERLINK("x")-1.jsonl'


@pytest.mark.parametrize("cell, inert", [("=1+1", "'=1+1"), ("+cmd", "'+cmd"), ("-2+3", "'-2+3"), ("@x", "'@x"),
                                         ("\tx", "'\tx"), ("\rx", "'\rx"), ("-0.5", "-0.5"), ("+3e-7", "+3e-7"),
                                         ("lib/a.js", "lib/a.js"), ("", "")])
def test_inert_cell_prefixes_what_a_spreadsheet_reads_as_a_formula(cell, inert):
    from citeledger.core import inert_cell

    assert inert_cell(cell) == inert


def test_robustness_md_states_what_is_neutralised_as_the_code_does():
    from citeledger.infra.printable import CONTROLS, FORMULA_STARTS, printable

    doc = (Path(__file__).resolve().parent.parent.parent / "docs" / "robustness.md").read_text()
    section = doc[doc.index("## Hostile input, round four"):]
    for start in FORMULA_STARTS:
        shown = {"\t": "a tab", "\r": "a CR"}.get(start, f"`{start}`")
        assert shown in section, start
    ranges = ["U+0000–U+001F", "U+007F–U+009F", "U+2028, U+2029", "U+202A–U+202E", "U+2066–U+2069"]
    stated = set()
    for r in ranges:
        bounds = [int(x, 16) for x in r.replace("U+", "").replace("–", ",").replace(" ", "").split(",")]
        stated |= set(range(bounds[0], bounds[1] + 1)) if "–" in r else set(bounds)
        assert r in section, r
    assert stated == set(CONTROLS)
    assert all(printable(chr(c)) != chr(c) for c in CONTROLS) and printable("é ü 漢") == "é ü 漢"
    assert "--csv-raw" in section and "`\\x1b`" in section


def test_a_transcript_reached_by_a_symlink_and_a_linked_directory_is_one_session(tmp_path):
    import json

    runs = tmp_path / "runs"
    runs.mkdir()
    rollout = _session(runs / "run-a.jsonl", "lib/a.js")
    (runs / "latest.jsonl").symlink_to(rollout.name)
    (tmp_path / "current").symlink_to(runs)
    result = run("sweep", "-q", "--json", runs, tmp_path / "current")
    records = [json.loads(line) for line in result.stdout.splitlines()]
    sessions = [r for r in records if r["record"] == "session"]
    assert [s["session"] for s in sessions] == ["run-a.jsonl"], sessions  # once, by its own name
    assert f"{runs / 'latest.jsonl'}:0: the same file as {rollout} (a second name), counted once" in err(result)
    assert "counted once" in err(result).split(str(tmp_path / "current"))[1]
