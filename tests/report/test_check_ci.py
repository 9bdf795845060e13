"""report/check_ci.py: JUnit XML and the step summary render what they are given, and survive any text."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from citeledger.harness.check_session import SessionCheck
from citeledger.report.check_ci import junit_xml, step_summary
from citeledger.report.results import CheckResult

HOSTILE = "path\x01with\x1bcontrols | a pipe <b>tag</b> & \ud800 surrogate\nand a line"


def result(*checks, expect_fail=False):
    return CheckResult(spec="gate.yaml", fixtures=(), checks=checks, expect_fail=expect_fail,
                       passed=all(c.passed for c in checks))


def test_any_detail_text_is_well_formed_xml():
    xml = junit_xml(result(SessionCheck(key="k", name=HOSTILE, passed=False, detail=HOSTILE, block="corpus")))
    case = ET.fromstring(xml).find("./testsuite/testcase")
    assert case.find("failure").get("message").startswith("path\\x01with\\x1bcontrols")
    assert "\\ud800" in case.get("name") and ET.fromstring(xml).find("testsuite").get("name") == "corpus"


def test_blocks_are_suites_in_order_with_their_counts():
    checks = (SessionCheck(key="a", name="a", passed=True, detail="da"),
              SessionCheck(key="b", name="b", passed=False, detail="db", block="corpus"),
              SessionCheck(key="c", name="c", passed=False, detail="dc", block="corpus"))
    root = ET.fromstring(junit_xml(result(*checks, expect_fail=True)))
    suites = [(s.get("name"), s.get("tests"), s.get("failures")) for s in root]
    assert suites == [("session", "1", "0"), ("corpus", "2", "2")] and root.get("expect_fail") == "true"


def test_a_summary_cell_holds_no_pipe_line_break_or_tag():
    text = step_summary(result(SessionCheck(key="k", name="n", passed=False, detail=HOSTILE)))
    row = [line for line in text.splitlines() if line.startswith("| ❌")][0]
    assert "<b>" not in row and "\n" not in row and row.endswith("|")
    assert row.replace("\\|", "").count("|") == 5


FORGER = "ok\u202e\x1b]8;;http://x\x07 FAIL\nPASS — 9 of 9"


def test_a_value_that_would_forge_a_line_or_hide_text_is_escaped_in_both_forms():
    check = SessionCheck(key="k", name=FORGER, passed=False, detail=FORGER, block="corpus")
    case = ET.fromstring(junit_xml(result(check))).find("./testsuite/testcase")
    for said in (case.get("name"), case.find("failure").get("message"), case.find("failure").text):
        assert "\u202e" not in said and "\x1b" not in said and "\n" not in said, said
        assert said.startswith("ok\\u202e\\x1b]8;;http://x\\x07 FAIL\\nPASS")
    summary = step_summary(result(check))
    assert "\u202e" not in summary and "\x1b" not in summary and "\\u202e" in summary
