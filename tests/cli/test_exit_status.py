"""Exit statuses as docs/cli.md documents them: 0 success, 1 success with
warnings, 2 usage/input/ruleset error, 3 internal error, 4 a `check` that does
not hold, 130 interrupted."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import json

import pytest

import forked_python

from citeledger.core import errors
from citeledger.cli import main
from citeledger.engine import session as engine_session

HERE = Path(__file__).parent.parent
REAL = HERE / "fixtures" / "real" / "stream"
MALFORMED = HERE / "fixtures" / "malformed"
CLEAN = str(REAL / "express-res-send.jsonl")


def run(args, capsys) -> tuple[int, str, str]:
    status = main(args)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_documented_table_matches_the_code():
    doc = (HERE.parent / "docs" / "cli.md").read_text("utf-8")
    rows = dict(re.findall(r"^\|\s*(\d+) \| ([^|]+)\|", doc, re.M))
    assert set(rows) == {"0", "1", "2", "3", "4", "130"}
    assert errors.EXIT_OK == 0 and rows["0"].startswith("success")
    assert errors.EXIT_WARNINGS == 1 and rows["1"].startswith("success with warnings")
    assert errors.EXIT_USAGE == 2 and rows["2"].startswith("usage, input or ruleset error")
    assert errors.EXIT_INTERNAL == 3 and rows["3"].startswith("internal error")
    assert errors.EXIT_CHECK_FAILED == 4 and rows["4"].startswith("`check` only: a check of the spec does not hold")


@pytest.mark.parametrize("args", [
    ["score", CLEAN],
    ["score", "--json", CLEAN],
    ["score", str(REAL / "flask-views.jsonl"), str(REAL / "flask-views.t2.jsonl")],
    ["explain", CLEAN],
])
def test_success_is_0_and_quiet(args, capsys):
    status, out, err = run(args, capsys)
    assert (status, err) == (0, "") and out


@pytest.mark.parametrize("args, needle", [
    (["score", str(MALFORMED / "truncated-last-line.jsonl")], "truncated-last-line.jsonl:5: not JSON"),
    (["score", str(REAL / "fastify-killed.jsonl")], "fastify-killed.jsonl:4: not JSON (truncated)"),
    (["score", str(MALFORMED / "empty.jsonl")], "empty.jsonl:0: empty file"),
    (["sweep", "--quiet", "--jobs", "1", str(MALFORMED)], "citeledger: warning: "),
])
def test_success_with_warnings_is_1(args, needle, capsys):
    status, out, err = run(args, capsys)
    assert status == 1 and out and needle in err


def test_an_unscored_session_exits_1_naming_why_on_stderr(capsys):
    path = str(REAL / "express-no-explore.jsonl")
    status, out, err = run(["score", path], capsys)
    assert status == 1
    assert err == (f"citeledger: warning: {path}:0: not scored (no-explore): no codegraph_explore response with a source section\n"
                   "citeledger: note: 2 Read/Grep/Glob/shell call(s): try --ruleset retrieval\n")  # issue 44's hint
    assert out.startswith("Explore allocation: no codegraph_explore responses")


def test_an_unscored_session_is_null_in_score_json_as_in_sweep(capsys):
    status, out, err = run(["score", "--json", str(REAL / "express-no-explore.jsonl")], capsys)
    data = json.loads(out)
    assert (data["status"], data["efficiency"], data["lower_bound"]) == ("no-explore", None, None)
    assert data["reason"] == "no codegraph_explore response with a source section"
    killed = json.loads(run(["score", "--json", str(REAL / "fastify-killed.jsonl")], capsys)[1])
    assert (killed["status"], killed["efficiency"]) == ("no-answer", None)


@pytest.mark.parametrize("args, needle", [
    (["score"], "no transcript given"),
    (["score", "/nonexistent/run.jsonl"], "/nonexistent/run.jsonl: no such file"),
    (["score", str(MALFORMED / "binary-garbage.jsonl")], "not a Claude Code transcript"),
    (["score", "--ruleset", "no-such-ruleset", CLEAN], "no ruleset 'no-such-ruleset'"),
    (["score", "--session", str(MALFORMED), CLEAN], "not both"),
])
def test_input_and_ruleset_errors_are_2_with_one_line(args, needle, capsys):
    status, out, err = run(args, capsys)
    assert status == 2 and out == ""
    assert err.startswith("citeledger: error: ") and needle in err and err.count("\n") == 1


def test_a_bad_ruleset_is_2_naming_file_line_and_key(tmp_path, capsys):
    ruleset = tmp_path / "r.yaml"
    ruleset.write_text("extends: default\nchannels:\n  symbol:\n    min_length: many\n")
    status, out, err = run(["score", "--ruleset", str(ruleset), CLEAN], capsys)
    assert status == 2 and out == ""
    assert err == f"citeledger: error: {ruleset}:4: channels.symbol.min_length: must be an integer, not str\n"


@pytest.mark.parametrize("argv", [["score", "--no-such-option", CLEAN], ["no-such-command"], []])
def test_usage_errors_are_2(argv):
    # argparse exits by itself; check the real process status (of a process forked from a warm interpreter).
    proc = forked_python.run([sys.executable, "-m", "citeledger.cli", *argv], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "usage:" in proc.stderr and proc.stdout == ""


def test_an_internal_error_is_3_in_one_line(monkeypatch, capsys):
    def broken(*_):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(engine_session, "score", broken)
    status, out, err = run(["score", CLEAN], capsys)
    assert status == 3 and out == ""
    assert err == "citeledger: internal error: ZeroDivisionError: simulated bug (rerun with --debug)\n"
    with pytest.raises(ZeroDivisionError):  # --debug shows the traceback instead
        main(["--debug", "score", CLEAN])


def test_an_interrupt_is_130(monkeypatch, capsys):
    def interrupted(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(engine_session, "score", interrupted)
    status, _, err = run(["score", CLEAN], capsys)
    assert status == 130 and err == "citeledger: interrupted\n"


def test_the_process_status_is_the_returned_status():
    # The console script exits with main()'s value, not just in-process.
    proc = forked_python.run([sys.executable, "-m", "citeledger.cli", "score", str(MALFORMED / "empty.jsonl")],
                             capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "empty file" in proc.stderr
