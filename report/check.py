"""`citeledger check`'s text block and JSON.

Per fixture, the block codegraph's probe-allocation.mjs prints (`printReport`:
the query, the project, the budget line `delivered · allocated of budget
(hard ceiling) [over budget] [TRUNCATED]`, the group table, the file table,
PASS/FAIL per check with its detail line), then each file's spend of its
reservation as probe-file-spend.mjs lays it out, with its starvation flags;
then the session keys; then one line per fixture and the verdict.
"""

from __future__ import annotations

from citeledger.core import js_round, js_string, percent, spent, thousands, to_fixed, utf16_len

GROUP_ROWS = ("answer", "incidental", "other")  # the groups the reference's table shows
FILE_HEADER = "    #  alloc%  deliv%    bytes  score    graph  hits  gen  render     file"
SPEND_HEADER = "    #   score  reserved   spent   spent%   render        file"


def _num(n) -> str:
    return thousands(js_round(n))  # Math.round(n).toLocaleString('en-US')


def _rounded(n) -> str:
    return js_string(js_round(n))  # `${Math.round(n)}`: Infinity, 1e+30 as there


def _left(text: str, width: int) -> str:
    return text + " " * max(0, width - utf16_len(text))  # padEnd counts UTF-16 units


def _right(text: str, width: int) -> str:
    return " " * max(0, width - utf16_len(text)) + text


def budget_line(report) -> str:
    return (
        f"   envelope {_num(report.chars)} delivered · {_num(report.allocated_chars or 0)} allocated"
        f" of {_num(report.budget)} budget (hard ceiling {_num(report.hard_ceiling or 0)})"
        f"{' [over budget]' if report.over_budget else ''}{' [TRUNCATED]' if report.truncated else ''}"
    )


def _group_table(result) -> list[str]:
    delivered, allocated = dict(result.delivered), dict(result.allocated)
    lines = ["   group        alloc%  deliv%"]
    for g in GROUP_ROWS:
        if g in delivered or g in allocated:
            lines.append(f"   {_left(g, 12)} {_right(percent(allocated.get(g, 0)), 6)}  {_right(percent(delivered.get(g, 0)), 6)}")
    return lines


def _file_table(report) -> list[str]:
    lines = [FILE_HEADER]
    for f in report.files:
        if not ((f.emitted_chars or 0) > 0 or f.final_chars > 0):
            continue
        lines.append(
            "   " + _right(str(f.rank), 2) + "  " + _right(percent(f.allocated_share or 0), 6) + "  "
            + _right(percent(f.share), 6) + "  " + _right(_num(f.emitted_chars or 0), 7) + "  "
            + _right(js_string(f.score), 5) + "  " + _right(to_fixed(f.graph_score, 5), 7) + "  "
            + _right(str(f.term_hits), 4) + "  " + (" ✓ " if "generated" in f.flags else "   ") + "  "
            + _left((f.render if f.render is not None else "-") + ("*" if f.clipped else ""), 9) + "  " + f.path
        )
    return lines


def _spend_table(result) -> list[str]:
    """Every file with a reservation: its spend, `*` on a file in a starvation pair."""
    flagged = {p for flag in result.flags for p in (flag.starved, flag.overspent)}
    rows = [f for f in result.report.files if f.allowance]
    if not rows:
        return []
    lines = ["   spend of each reservation (probe-file-spend.mjs; * = in a starvation pair):", SPEND_HEADER]
    for f in rows:
        mode = f.render if f.render is not None else (f.skipped if f.skipped is not None else "—")
        lines.append(
            f"   {_right(str(f.rank), 2)}{'*' if f.path in flagged else ' '} {_right(_rounded(f.score), 6)} "
            f"{_right(_num(f.allowance), 9)} {_right(_num(f.final_chars), 7)} {_right(percent(spent(f)), 7)}   "
            f"{_left(mode, 13)} {f.path}"
        )
    for flag in result.flags:
        lines.append(
            f"   FLAG: {flag.starved} (score {_rounded(flag.starved_score)}) spent {_num(flag.starved_spent)}/"
            f"{_num(flag.starved_reserved)} while {flag.overspent} (score {_rounded(flag.overspent_score)}) "
            f"spent {_num(flag.overspent_spent)}/{_num(flag.overspent_reserved)}"
        )
    return lines


def _checks(checks) -> list[str]:
    return [f"   {'PASS' if c.passed else 'FAIL'}  {c.name}\n         {c.detail}" for c in checks]


def render_fixture(result) -> str:
    fixture, report = result.fixture, result.report
    lines = ["", f"── {fixture.id} — {fixture.title}"]
    if report is None:
        if fixture.query is not None:
            lines.append(f'   query   "{fixture.query}"')
        return "\n".join(lines + _checks(result.checks)) + "\n"
    lines += [
        f'   query   "{report.query}"',
        f"   project {report.project_root} · {_num(report.indexed_file_count or 0)} files indexed",
        budget_line(report), "", *_group_table(result), "", *_file_table(report), "",
    ]
    spend = _spend_table(result)
    if spend:
        lines += spend + [""]
    return "\n".join(lines + _checks(result.checks)) + "\n"


def render_session(checks, title: str, heading: str = "session keys") -> str:
    if not checks:
        return ""
    return "\n".join(["", f"── {heading} — {title}", *_checks(checks)]) + "\n"


def render_verdict(results, session_checks, expect_fail: bool) -> str:
    lines = [""]
    lines += [f"{'PASS' if r.passed else 'FAIL'}  {r.fixture.id}" for r in results]
    lines += [f"{'PASS' if c.passed else 'FAIL'}  {c.block} {c.key}" for c in session_checks]
    checks = [c for r in results for c in r.checks] + list(session_checks)
    failed = sum(not c.passed for c in checks)
    verdict = "FAIL" if failed else "PASS"
    line = f"check: {verdict} — {len(checks) - failed} of {len(checks)} check(s) hold"
    if expect_fail:
        line += " (--expect-fail: " + ("failing, as expected" if failed else "all hold: the fixture is fixed, flip the gate") + ")"
    return "\n".join(lines + ["", line]) + "\n"


def _files(result) -> list[dict]:
    starved = {flag.starved for flag in result.flags}
    return [
        {"path": f.path, "rank": f.rank, "score": f.score, "render": f.render, "skipped": f.skipped,
         "allowance": f.allowance, "emitted_chars": f.emitted_chars, "final_chars": f.final_chars,
         "share": f.share, "allocated_share": f.allocated_share, "spent": spent(f), "starved": f.path in starved}
        for f in result.report.files
    ]


def fixture_dict(result) -> dict:
    out = {"id": result.fixture.id, "passed": result.passed,
           "checks": [{"name": c.name, "pass": c.passed, "detail": c.detail} for c in result.checks],
           "query": result.fixture.query}
    report = result.report
    if report is None:
        return {**out, "report": None}
    origin = result.text_origin
    return {
        **out,
        "report": f"{report.origin.file}:{report.origin.line}",
        "response": None if origin is None else f"{origin.file}:{origin.line}",
        "shares": {"delivered": dict(result.delivered), "allocated": dict(result.allocated)},
        "envelope": {"chars": report.chars, "allocated_chars": report.allocated_chars, "budget": report.budget,
                     "hard_ceiling": report.hard_ceiling, "over_budget": report.over_budget,
                     "truncated": report.truncated},
        "files": _files(result),
        "starvation": [
            {"starved": f.starved, "starved_score": f.starved_score, "starved_reserved": f.starved_reserved,
             "starved_spent": f.starved_spent, "overspent": f.overspent, "overspent_score": f.overspent_score,
             "overspent_reserved": f.overspent_reserved, "overspent_spent": f.overspent_spent}
            for f in result.flags
        ],
    }


def check_dict(results, session_checks, passed: bool) -> dict:
    return {
        "passed": passed,
        "fixtures": [fixture_dict(r) for r in results],
        "session": checks_list(session_checks),
    }


def checks_list(checks) -> list[dict]:
    return [{"key": c.key, "pass": c.passed, "detail": c.detail, "name": c.name} for c in checks]
