"""The fixture judge of `citeledger check`: codegraph's CG-6 assertions on a diagnostic report.

The rules and the wording of every check are those of codegraph's
`scripts/agent-eval/probe-allocation.mjs` (`evaluate`): files are put in the
fixture's groups by its globs (the first group with a matching glob; none:
`other`), shares are summed per group from the report's `share` (delivered)
and `allocatedShare` (allocated), and each assert key gives its checks in the
reference's order. A fixture is judged on the last report whose query is
its `query` (no query: the last report); with no report it is named and is
not a pass. `mustContain` reads the explore response joined to that report
(None: no transcript call was joined to it). Nothing here prints.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import attrs

from citeledger.core import js_round, percent, thousands
from citeledger.harness.check_spec import Fixture
from citeledger.harness.spend import Starvation, starvations

OTHER = "other"
NO_REPORT = "a diagnostic report answers this fixture"


@attrs.frozen
class Check:
    name: str
    passed: bool
    detail: str


@attrs.frozen
class FixtureResult:
    fixture: Fixture
    report: object  # the ExploreReport judged, None when no report fits
    checks: tuple[Check, ...]
    delivered: tuple[tuple[str, float], ...] = ()  # group -> summed share, in first-seen order
    allocated: tuple[tuple[str, float], ...] = ()  # group -> summed allocatedShare
    flags: tuple[Starvation, ...] = ()  # at most PAIRS_PER_FILE per starved file (harness/spend.py)
    unlisted: tuple[tuple[str, int], ...] = ()  # (starved path, pairs not listed in flags)
    text_origin: object = None  # where the response mustContain read is (an Origin), if any

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)


def num(n: float) -> str:
    """The reference's `Math.round(n).toLocaleString('en-US')` (Math.round: halves toward +infinity)."""
    return thousands(js_round(n))


def choose_report(fixture: Fixture, reports: Sequence, index: Optional[dict] = None):
    """The last report whose query is the fixture's (no query: the last report); None if none.
    `index` (report_index(reports)) answers it without scanning the reports: a spec of many
    fixtures over a sidecar of many reports costs their sum, not their product."""
    if fixture.query is None:
        return reports[-1] if reports else None
    if index is not None:
        return index.get(fixture.query)
    return next((r for r in reversed(reports) if r.query == fixture.query), None)


def report_index(reports: Sequence) -> dict:
    """Each query to the last report asking it."""
    return {r.query: r for r in reports}


def group_of(path: str, groups) -> str:
    """`groups`: (name, matchers) pairs; the first with a matcher that takes the path."""
    for name, matchers in groups:
        if any(m(path) for m in matchers):
            return name
    return OTHER


def compiled_groups(fixture: Fixture, matcher: Callable) -> tuple:
    return tuple((name, tuple(matcher(g) for g in globs)) for name, globs in fixture.groups)


def missing(fixture: Fixture, reports: Sequence, sidecars: Sequence[str]) -> FixtureResult:
    what = "no report" if fixture.query is None else f'no report has the query "{fixture.query}"'
    detail = f"{what} ({len(reports)} report(s) in {', '.join(sidecars)})" if sidecars else f"{what}: no sidecar given"
    return FixtureResult(fixture=fixture, report=None, checks=(Check(name=NO_REPORT, passed=False, detail=detail),))


def evaluate(fixture: Fixture, report, text: Optional[str], matcher: Callable, origin=None) -> FixtureResult:
    """The fixture's checks on `report`; `text` the explore response joined to it (None: none was)."""
    groups = compiled_groups(fixture, matcher)
    delivered: dict[str, float] = {}
    allocated: dict[str, float] = {}
    for f in report.files:
        g = group_of(f.path, groups)
        delivered[g] = delivered.get(g, 0) + f.share
        allocated[g] = allocated.get(g, 0) + (f.allocated_share or 0)
    want = fixture.assertions
    checks = [
        *_answer_check(want, delivered, allocated),
        *_source_check(want, report.files, groups),
        *_incidental_check(want, delivered, allocated),
        *_top_check(want, report.files, groups),
        *_deliver_checks(want, report.files),
        *_spend_checks(want, report.files),
        *_contain_checks(want, text),
    ]
    found = starvations(report.files)
    return FixtureResult(fixture=fixture, report=report, checks=tuple(checks), delivered=tuple(delivered.items()),
                         allocated=tuple(allocated.items()), flags=found.flags, unlisted=tuple(found.more().items()),
                         text_origin=origin)


def _answer_check(want, delivered: dict, allocated: dict) -> list[Check]:
    if want.answer_share_at_least is None:
        return []
    share = delivered.get("answer", 0)
    return [Check(
        name=f"answer group takes >= {percent(want.answer_share_at_least)} of the envelope",
        passed=share >= want.answer_share_at_least,
        detail=f"answer {percent(share)} delivered ({percent(allocated.get('answer', 0))} allocated)",
    )]


def _source_check(want, files, groups) -> list[Check]:
    """The answer group's share of the delivered SOURCE (CG-26), not of the whole envelope:
    the envelope's share moves with the response's prose, the source's does not."""
    if want.answer_share_of_source_at_least is None:
        return []
    by_group: dict[str, int] = {}
    total = 0
    for f in files:
        g = group_of(f.path, groups)
        by_group[g] = by_group.get(g, 0) + f.final_chars
        total += f.final_chars
    answer = by_group.get("answer", 0)
    share = answer / total if total > 0 else 0
    return [Check(
        name=f"answer group takes >= {percent(want.answer_share_of_source_at_least)} of DELIVERED SOURCE",
        passed=share >= want.answer_share_of_source_at_least,
        detail=f"answer {num(answer)} of {num(total)} source chars ({percent(share)})",
    )]


def _incidental_check(want, delivered: dict, allocated: dict) -> list[Check]:
    if want.incidental_share_at_most is None:
        return []
    share = delivered.get("incidental", 0)
    return [Check(
        name=f"incidental group takes <= {percent(want.incidental_share_at_most)} of the envelope",
        passed=share <= want.incidental_share_at_most,
        detail=f"incidental {percent(share)} delivered ({percent(allocated.get('incidental', 0))} allocated)",
    )]


def largest_delivered(files):
    """The file with the most final chars (the first of equals, as a stable sort leaves it); None."""
    best = None
    for f in files:
        if f.final_chars > 0 and (best is None or f.final_chars > best.final_chars):
            best = f
    return best


def _top_check(want, files, groups) -> list[Check]:
    if want.top_file_group is None:
        return []
    top = largest_delivered(files)
    actual = group_of(top.path, groups) if top else "(nothing delivered)"
    detail = f'{top.path} ({percent(top.share)}, group "{actual}")' if top else "no file delivered any source"
    return [Check(name=f'largest delivered file is in "{want.top_file_group}"', passed=actual == want.top_file_group,
                  detail=detail)]


def _record(files, path: str):
    return next((f for f in files if f.path == path), None)


def _deliver_checks(want, files) -> list[Check]:
    out = []
    for path in want.must_deliver_bytes:
        rec = _record(files, path)
        if rec is None:
            out.append(Check(name=f"{path} delivers source", passed=False, detail="not among the ranked candidates"))
            continue
        emitted = rec.emitted_chars or 0
        detail = f"{num(rec.final_chars)} delivered of {num(emitted)} allocated"
        if rec.final_chars == 0 and emitted > 0:
            detail += " — hard ceiling dropped the whole section"
        if emitted == 0:
            detail += f" — never rendered ({rec.skipped if rec.skipped is not None else 'not reached'}, rank #{rec.rank})"
        out.append(Check(name=f"{path} delivers source", passed=rec.final_chars > 0, detail=detail))
    return out


def _spend_checks(want, files) -> list[Check]:
    """Whether a file that won its share then spent it (CG-36): finalChars / allowance."""
    out = []
    for path, floor in want.spend_share_at_least:
        rec = _record(files, path)
        name = f"{path} spends >= {percent(floor)} of its reservation"
        if rec is None:
            out.append(Check(name=name, passed=False, detail="not among the ranked candidates"))
            continue
        spent = rec.final_chars / rec.allowance if rec.allowance else 0
        out.append(Check(
            name=name, passed=bool(rec.allowance) and rec.allowance > 0 and spent >= floor,
            detail=f"{num(rec.final_chars)} delivered of a {num(rec.allowance or 0)} reservation ({percent(spent)})",
        ))
    return out


NO_TEXT = "no explore response of the transcript given was joined to this report (give the run's transcript)"


def _contain_checks(want, text: Optional[str]) -> list[Check]:
    out = []
    for needle in want.must_contain:
        found = text is not None and needle in text
        out.append(Check(name=f'response contains "{needle}"', passed=found,
                         detail="present" if found else ("absent" if text is not None else NO_TEXT)))
    return out
