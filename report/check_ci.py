"""`citeledger check`'s CI forms: JUnit XML (`--junit FILE`) and a GitHub step summary (`--step-summary`).

Both render a report.results.CheckResult as it is (one test case per check,
the failures with their detail line); they compute nothing and write nothing
(cli/commands/check.py writes them with cli/output.py). Every value from a spec,
a sidecar or a transcript is written by round four's rule (core.printable: a control
character, a newline or a bidirectional override as its backslash escape), as
`check`'s text writes it, so none forges a test case, a table row or a verdict; the
XML is XML 1.0 (what printable leaves that XML cannot hold is written `\\xNN` too).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from citeledger.core import printable

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}",
                        printable(text))


def junit_xml(result) -> bytes:
    """One <testsuite> per block (a fixture, the session keys, the corpus keys), one <testcase>
    per check, a <failure> (its message the detail line) per check that does not hold."""
    suites = ET.Element("testsuites", name=_xml_text(f"citeledger check {result.spec}"))
    cases = result.cases()
    order = list(dict.fromkeys(suite for suite, _, _, _ in cases))
    for suite in order:
        mine = [c for c in cases if c[0] == suite]
        node = ET.SubElement(suites, "testsuite", name=_xml_text(suite), tests=str(len(mine)),
                             failures=str(sum(not ok for _, _, ok, _ in mine)), errors="0", skipped="0")
        for _, name, ok, detail in mine:
            case = ET.SubElement(node, "testcase", classname=_xml_text(f"citeledger.check.{suite}"),
                                 name=_xml_text(name))
            if ok:
                ET.SubElement(case, "system-out").text = _xml_text(detail)
            else:
                ET.SubElement(case, "failure", message=_xml_text(detail), type="check").text = _xml_text(detail)
    suites.set("tests", str(len(cases)))
    suites.set("failures", str(sum(not ok for _, _, ok, _ in cases)))
    if result.expect_fail:
        suites.set("expect_fail", "true")
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"


def _cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, no line break, no HTML."""
    text = printable(" ".join(text.split()))
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def step_summary(result) -> str:
    """The Markdown of a GitHub Actions step summary: the verdict, then a table of every check."""
    cases = result.cases()
    failed = sum(not ok for _, _, ok, _ in cases)
    verdict = "FAIL" if failed else "PASS"
    lines = [f"### citeledger check: {verdict} — {len(cases) - failed} of {len(cases)} check(s) hold", "",
             f"Spec `{_cell(result.spec).replace('`', '')}`"
             + (" (`--expect-fail`: a failing check is the expected state)" if result.expect_fail else ""), "",
             "| | block | check | detail |", "| --- | --- | --- | --- |"]
    for suite, name, ok, detail in cases:
        lines.append(f"| {'✅ PASS' if ok else '❌ FAIL'} | {_cell(suite)} | {_cell(name)} | {_cell(detail)} |")
    return "\n".join(lines) + "\n\n"
