"""The slice table on the hand-built corpus (tests/fixtures/corpus/make.py).

Base pass, scored sessions (used / envelope chars, by construction):
  alpha/r1 600/1000 = 0.6   alpha/r2 300/1000 = 0.3
  alpha/r3 1000/1000 = 1.0  (a.py 500 by path, b.py 500 by the symbol `render`)
  beta/r1  two segments, calls 800/1000 and 1000/1000: 1800/2000 = 0.9 (multi-turn)
  beta/r3  250/1000 = 0.25
Not scored: beta/r2 (no explore), gamma/r1 (no answer).
"""

import csv
import io
import json
from pathlib import Path

import pytest

from citeledger.cli import main

BASE = str(Path(__file__).parent.parent / "fixtures" / "corpus" / "base")


def run(capsys, *argv):
    code = main(["sweep", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def records(out):
    return [json.loads(line) for line in out.splitlines()]


def test_slice_table_matches_hand_worked_numbers(capsys):
    code, out, _ = run(capsys, BASE, "--json", "-q", "-j1")
    assert code == 1  # two sessions not scored
    slices = {r["slice"]: r for r in records(out) if r["record"] == "slice"}
    a = slices["all"]
    # sorted 0.25 0.3 0.6 0.9 1.0: type 7 p25 at h=1, p75 at h=3
    assert (a["n"], a["median"], a["p25"], a["p75"], a["min"]) == (5, 0.6, 0.3, 0.9, 0.25)
    assert a["pooled"] == pytest.approx(3950 / 6000)
    assert a["path_only_pooled"] == pytest.approx(3450 / 6000)  # minus b.py's 500 symbol-credited chars
    # calls 0.25 0.3 0.6 0.8 1.0 1.0: median at h=2.5, p25 at h=1.25
    assert a["calls"] == 6
    assert a["call_median"] == pytest.approx(0.7)
    assert a["call_p25"] == pytest.approx(0.375)
    assert a["not_scored"] == 2
    s = slices["single-question"]
    # sorted 0.25 0.3 0.6 1.0: median (0.3+0.6)/2, p25 h=0.75, p75 h=2.25
    assert s["n"] == 4
    assert s["median"] == pytest.approx(0.45)
    assert s["p25"] == pytest.approx(0.2875)
    assert s["p75"] == pytest.approx(0.7)
    assert s["pooled"] == pytest.approx(2150 / 4000)
    assert s["path_only_pooled"] == pytest.approx(1650 / 4000)
    assert s["not_scored"] == 2
    m = slices["multi-turn"]
    assert (m["n"], m["median"], m["min"], m["calls"]) == (1, 0.9, 0.9, 2)
    assert m["call_p25"] == pytest.approx(0.85)  # 0.8 + 0.25 * (1.0 - 0.8)
    assert m["not_scored"] == 0


def test_every_session_appears_scored_or_with_a_reason(capsys):
    _, out, _ = run(capsys, BASE, "--json", "-q")
    rows = {r["session"]: r for r in records(out) if r["record"] == "session"}
    assert len(rows) == 7
    assert rows["beta/r2.jsonl"]["status"] == "no-explore"
    assert rows["gamma/r1.jsonl"]["status"] == "no-answer"
    assert rows["beta/r1.jsonl"]["inputs"][1].endswith("r1.t2.jsonl")
    assert all(r["reason"] for r in rows.values() if r["status"] != "scored")


def test_text_table_lists_the_unscored(capsys):
    code, out, _ = run(capsys, BASE, "-q")
    assert code == 1
    assert "  all              5   65.8%   60.0%  30.0%  90.0%  25.0%      57.5%      6        70.0%     37.5%" in out
    assert "no-explore  beta/r2.jsonl" in out and "no-answer   gamma/r1.jsonl" in out
    assert "type 7" in out


def test_csv_and_out_dir(capsys, tmp_path):
    code, out, _ = run(capsys, BASE, "--csv", "-q", "--out", str(tmp_path / "o"))
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["slice"] for r in rows] == ["all", "single-question", "multi-turn"]
    assert rows[0]["n"] == "5" and float(rows[0]["median"]) == 0.6
    written = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert written == ["calls.csv", "files.csv", "report.html", "sessions.csv", "slices.csv", "summary.txt", "sweep.jsonl"]
    sessions = list(csv.DictReader((tmp_path / "o" / "sessions.csv").open()))
    assert len(sessions) == 7 and sessions[0]["session"] == "alpha/r1.jsonl"
    assert json.loads(sessions[0]["call_efficiencies"]) == [0.6]  # a JSON array, for pandas


def test_several_rulesets_in_one_pass(capsys, tmp_path):
    other = tmp_path / "pathonly.yaml"
    other.write_text("extends: default\nname: pathonly\nchannels:\n  rank: [path]\n")
    _, out, _ = run(capsys, BASE, "--json", "-q", "--ruleset", "default", "--ruleset", str(other))
    alls = {r["ruleset"]: r for r in records(out) if r["record"] == "slice" and r["slice"] == "all"}
    assert alls["default"]["pooled"] == pytest.approx(3950 / 6000)
    assert alls["pathonly"]["pooled"] == pytest.approx(3450 / 6000)
    assert alls["pathonly"]["median"] == pytest.approx(0.5)  # 0.25 0.3 0.5 0.6 0.9


def test_same_output_whatever_the_jobs(capsys):
    _, one, _ = run(capsys, BASE, str(Path(BASE).parent / "new"), "--json", "-q", "-j1")
    _, two, _ = run(capsys, BASE, str(Path(BASE).parent / "new"), "--json", "-q", "-j2")
    assert one == two


def test_nothing_found_is_an_input_error(capsys, tmp_path):
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and "no sessions found" in err and err.count("\n") == 2


def test_a_text_sweep_makes_no_json_line_and_the_json_lines_are_its_records(capsys, monkeypatch):
    from citeledger.engine import sweep as command

    made = []
    real = command.Rows.__call__

    def kept(self, outcome):
        one = real(self, outcome)
        made.append(one.lines)
        return one

    monkeypatch.setattr(command.Rows, "__call__", kept)
    text = run(capsys, BASE, "-q", "-j1")
    assert made and all(lines == b"" for lines in made)
    made.clear()
    code, out, _ = run(capsys, BASE, "--json", "-q", "-j1")
    sessions = [line for line in out.splitlines() if json.loads(line)["record"] == "session"]
    assert b"".join(made).decode().splitlines() == sessions
    assert code == text[0] == 1
