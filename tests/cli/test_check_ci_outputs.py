"""`citeledger check --junit FILE` and `--step-summary [FILE]`: the verdict in the forms CI reads.

The JUnit XML parses with xml.etree, holds one testcase per check the text
prints and one failure per FAIL line (its message the detail line printed under
it); the step summary is a Markdown table of the same checks, appended to
$GITHUB_STEP_SUMMARY. Neither changes the exit status.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from citeledger.cli import main

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests" / "fixtures" / "real"
EXPRESS = REPO / "docs" / "examples" / "check" / "express.json"
STALE = (REAL / "explore" / "express-drift" / "res-send-stale.debug.json", REAL / "stream" / "express-stale.jsonl")
GOOD = (REPO / "tests" / "fixtures" / "pass" / "cg22" / "ab-express" / "explore-new.jsonl",
        REPO / "tests" / "fixtures" / "pass" / "cg22" / "ab-express" / "run-new-1.jsonl")


def cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def printed_checks(text: str) -> list[tuple[str, str, str]]:
    """(PASS|FAIL, name, detail) of every check of check's text."""
    return re.findall(r"^   (PASS|FAIL)  (.*)\n         (.*)$", text, re.M)


def corpus_spec(tmp_path) -> Path:
    path = tmp_path / "corpus.yaml"
    path.write_text(yaml.safe_dump({"corpus": {"pooledEfficiencyAtLeast": 0.99, "scoredShareAtLeast": 0.01}}))
    return path


CASES = {
    "failing fixtures": lambda tmp: [EXPRESS, "--diagnostics", STALE[0], STALE[1]],
    "holding fixtures": lambda tmp: [EXPRESS, "--diagnostics", *GOOD],
    "corpus": lambda tmp: [corpus_spec(tmp), "--corpus", REAL, "-q"],
}


@pytest.mark.parametrize("case", CASES)
def test_junit_has_a_testcase_per_check_and_a_failure_per_failing_one(tmp_path, capsys, case):
    argv = CASES[case](tmp_path)
    plain, text, _ = cli(capsys, "check", *argv)
    junit = tmp_path / "out" / "check.xml"
    status, again, _ = cli(capsys, "check", *argv, "--junit", junit)
    assert status == plain and again == text  # the exit status and stdout are unchanged
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    shown = printed_checks(text)
    assert [c.get("name") for c in cases] == [name for _, name, _ in shown]
    failures = [(c.get("name"), c.find("failure").get("message")) for c in cases if c.find("failure") is not None]
    assert failures == [(name, detail) for verdict, name, detail in shown if verdict == "FAIL"]
    assert int(root.get("failures")) == len(failures) and int(root.get("tests")) == len(shown)
    assert (status == 4) == bool(failures)
    assert os.listdir(junit.parent) == ["check.xml"]  # written whole, nothing left beside it


def test_junit_replaces_an_older_file(tmp_path, capsys):
    junit = tmp_path / "check.xml"
    junit.write_text("x" * 100_000)
    cli(capsys, "check", EXPRESS, "--diagnostics", *GOOD, "--junit", junit)
    assert ET.parse(junit).getroot().get("failures") == "0"


def test_an_unwritable_junit_is_one_error_line(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    status, _, err = cli(capsys, "check", EXPRESS, "--diagnostics", *GOOD, "--junit", tmp_path / "file" / "x.xml")
    assert status == 2 and err.count("\n") == 1 and "x.xml" in err


def test_step_summary_appends_a_table_to_the_github_file(tmp_path, capsys, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    status, text, _ = cli(capsys, "check", EXPRESS, "--diagnostics", *STALE, "--step-summary")
    body = summary.read_text()
    assert status == 4 and body.startswith("earlier step\n### citeledger check: FAIL — 0 of 10 check(s) hold")
    rows = [line for line in body.splitlines() if line.startswith("| ❌ FAIL") or line.startswith("| ✅ PASS")]
    assert len(rows) == len(printed_checks(text)) == 10
    assert all(detail in body for _, _, detail in printed_checks(text) if "|" not in detail and "<" not in detail)


def test_step_summary_to_a_named_file_and_without_one(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    status, out, err = cli(capsys, "check", EXPRESS, "--diagnostics", *GOOD, "--step-summary")
    assert (status, out) == (2, "") and "GITHUB_STEP_SUMMARY is not set" in err
    named = tmp_path / "s.md"
    status, _, _ = cli(capsys, "check", EXPRESS, "--diagnostics", *GOOD, "--step-summary", named, "-q")
    assert status in (0, 1) and "### citeledger check: PASS" in named.read_text()
