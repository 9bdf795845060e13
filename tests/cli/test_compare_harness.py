"""`citeledger compare PASS --arms L1 L2 [L3 ...] --harness`: compare-arms.mjs's table, byte for byte.

The oracle is tests/oracle/arm_table.mjs, the team's JavaScript transcription
of the table (docs/harness.md "The arm table") over run_report.mjs and
reference.mjs. Compared on the shipped passes (two arms; run-all.sh's
multi-turn layout; a killed run) and on a pass built from harness_cases.py
with three arms, a race, contamination both ways and a multi-turn session;
some of its cells are also worked out by hand.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from harness_cases import write_case

from citeledger.cli import main

TESTS = Path(__file__).parents[1]
ORACLE = TESTS / "oracle" / "arm_table.mjs"
PASS = TESTS / "fixtures" / "pass"
SHIPPED = (
    (str(PASS / "cg22" / "ab-express"), "new", "baseline"),
    (str(PASS / "cg23" / "ab-express"), "baseline", "new"),
    (str(PASS / "cg22" / "headless-express"), "headless-with", "headless-without"),
    (str(PASS / "cg22" / "ab-flask") + "/", "new", "baseline", "new"),
)
# Built pass: arm -> (case, run file stem) per run; "turns" is run-all.sh's one multi-turn session.
BUILT = {
    "with": (("basic", "run-with-1"), ("race", "run-with-2"), ("cli-returned", "run-with-10")),
    "without": (("cli-blocked", "run-without-1"), ("no-result", "run-without-2"), ("usage-mix", "run-without-3")),
    "turns": (("three-segments", "run-turns"), ("basic", "run-turns-1")),  # run-turns.jsonl wins: -1 is no run
}


def oracle(asked) -> list[dict]:
    proc = subprocess.run(["node", str(ORACLE), "--batch"], input=json.dumps([list(a) for a in asked]),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def ours(args, capsys) -> tuple[str, str]:
    code = main(["compare", args[0], "--arms", *args[1:], "--harness"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> str:
    cases, folder = tmp_path_factory.mktemp("cases"), tmp_path_factory.mktemp("pass")
    for runs in BUILT.values():
        for case, stem in runs:
            for i, written in enumerate(write_case(cases, case), 1):
                shutil.copy(written, folder / (f"{stem}.jsonl" if i == 1 else f"{stem}.t{i}.jsonl"))
    return str(folder)


@pytest.mark.parametrize("args", SHIPPED, ids=lambda a: " ".join(Path(a[0]).parts[-2:] + a[1:]))
def test_shipped_pass_prints_what_the_oracle_prints(args, capsys):
    out, _ = ours(args, capsys)
    assert out == oracle([args])[0]["out"]


def test_three_arms_print_what_the_oracle_prints(built, capsys):
    args = (built, "with", "without", "turns", "missing")
    out, err = ours(args, capsys)
    expected = oracle([args])[0]
    assert out == expected["out"]
    assert expected["err"] in err  # the WARN line; our input warnings follow it


def test_three_arm_cells_as_worked_by_hand(built, capsys):
    out, err = ours((built, "with", "without", "turns", "missing"), capsys)
    assert "  WARN: no run logs for arm 'missing' in " + built in err
    lines = out.split("\n")
    assert lines[1] == f"====== ARM COMPARISON — {built} ======"
    row = {line[:38].strip(): line[38:].split() for line in lines[2:] if line.startswith("  ") and len(line) > 38}
    # run-turns.jsonl with .t2/.t3 is one run; run-with-10 sorts after run-with-2 (numeric order).
    assert row["runs"] == ["3", "3", "1"]
    # The killed run stays in, as the reference keeps it; the session's second segment ended in an error.
    assert row["of which non-success"] == ["0", "1", "1"]
    assert row["MCP cold-start race"] == ["1", "0", "0"]
    # Each cli case makes two attempts (`./node_modules/.bin/codegraph explore`, `$(codegraph status)`,
    # the second an error): "with" has one that returned. The "blocked" row counts every attempt,
    # the returned one too (the reference's).
    assert row["CLI calls that RETURNED output"] == ["1", "0", "0"]
    assert row["CLI attempts blocked"] == ["2", "2", "0"]
    assert "  !! with reached codegraph through Bash — those runs are CONTAMINATED" in lines


def test_more_than_two_arms_without_harness_is_refused(built, capsys):
    assert main(["compare", built, "--arms", "with", "without", "turns"]) == 2
    assert "--arms takes two labels" in capsys.readouterr().err


def test_no_arm_with_runs_is_an_error(built, capsys):
    assert main(["compare", built, "--arms", "nope", "none", "--harness"]) == 2
    assert f"no run logs for nope/none in {built}" in capsys.readouterr().err


def test_statistics_options_are_refused_with_harness(built, capsys):
    assert main(["compare", built, "--arms", "with", "without", "--harness", "--json"]) == 2
    assert "not with --json" in capsys.readouterr().err
