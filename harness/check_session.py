"""The session keys of a `citeledger check` spec: thresholds on the transcript's own numbers.

What the CG-6 probe cannot see: whether the agent's answer cited the files
(`efficiencyAtLeast`, `lowerBoundAtLeast`: the session's efficiency and its
first-ranked channel alone, as `score` prints them), what it did next
(`readReturnedShareAtMost`: the share of answered explore calls whose next
act was a Read of a file the explore returned, the sufficiency rule's
`read_returned` bucket), and between two arms of a pass (`maxDrop`: the new
arm's median efficiency may fall below the baseline's by at most this,
judged on the upper bound of the bootstrap interval of the difference, as
`compare` computes it). A number that cannot be judged (a session not
scored, no answered call, an arm without runs) is not a pass. Nothing here
prints.
"""

from __future__ import annotations

from typing import Optional, Sequence

import attrs

from citeledger.core import percent, points, thousands, to_fixed


@attrs.frozen
class SessionCheck:
    key: str  # the spec's key
    name: str
    passed: bool
    detail: str


def _scored(score) -> Optional[str]:
    """Why the session's efficiency means nothing (None: it does)."""
    if score.status == "scored":
        return None
    return f"session {score.name} has no efficiency ({score.status})"


def efficiency_check(score, floor: float) -> SessionCheck:
    name = f"efficiency >= {percent(floor)}"
    why = _scored(score)
    if why:
        return SessionCheck(key="efficiencyAtLeast", name=name, passed=False, detail=why)
    return SessionCheck(
        key="efficiencyAtLeast", name=name, passed=score.efficiency >= floor,
        detail=f"efficiency {percent(score.efficiency)}: {thousands(score.used)} of {thousands(score.envelope)} "
        f"chars went to cited files (session {score.name}, ruleset {score.ruleset})",
    )


def lower_bound_check(score, floor: float) -> SessionCheck:
    channel = score.channels[0]
    name = f"{channel}-cited alone >= {percent(floor)}"
    why = _scored(score)
    if why:
        return SessionCheck(key="lowerBoundAtLeast", name=name, passed=False, detail=why)
    first = score.used_by_rank[0] if score.used_by_rank else 0
    return SessionCheck(
        key="lowerBoundAtLeast", name=name, passed=score.lower_bound >= floor,
        detail=f"{channel}-cited alone {percent(score.lower_bound)}: {thousands(first)} of "
        f"{thousands(score.envelope)} chars (the first-ranked channel of ruleset {score.ruleset})",
    )


def contamination_check(run) -> SessionCheck:
    """`noContamination`: no codegraph CLI call returned output (`run`: the run-basics record)."""
    name = "no codegraph CLI call returned output"
    cli = run.cli
    if cli.returned is None:
        return SessionCheck(key="noContamination", name=name, passed=False,
                            detail="this transcript's format logs no tool results: contamination cannot be judged")
    return SessionCheck(
        key="noContamination", name=name, passed=cli.returned == 0,
        detail=f"{cli.attempts} codegraph CLI call(s): {cli.returned} RETURNED OUTPUT, {cli.blocked} blocked",
    )


def race_check(run) -> SessionCheck:
    """`noRace`: no tool result said "No such tool available" (the MCP cold-start race)."""
    name = "no MCP cold-start race"
    if run.raced is None:
        return SessionCheck(key="noRace", name=name, passed=False,
                            detail="this transcript's format logs no tool results: the race cannot be judged")
    detail = ("a tool result said the tool was not available (MCP cold-start race)" if run.raced
              else "no tool result said the tool was not available")
    return SessionCheck(key="noRace", name=name, passed=not run.raced, detail=detail)


def read_returned_check(judged, ceiling: float, tool_name: str) -> SessionCheck:
    """`judged`: the session's Sufficiency; `tool_name`: the explore tool as the reports name it."""
    name = f"Read a file we returned <= {percent(ceiling)} of answered explore calls"
    if not judged.answered:
        unanswered = f" ({judged.errors} errored or never returned)" if judged.errors else ""
        return SessionCheck(key="readReturnedShareAtMost", name=name, passed=False,
                            detail=f"no answered {tool_name} calls{unanswered}")
    count = judged.count("read_returned")
    share = count / judged.answered
    calls, were = ("call", "was") if judged.answered == 1 else ("calls", "were")
    return SessionCheck(
        key="readReturnedShareAtMost", name=name, passed=share <= ceiling,
        detail=f"{count} of {judged.answered} answered {calls} ({percent(share)}) {were} followed by a Read "
        "of a file an explore returned",
    )


def max_drop_checks(groups: Sequence[dict], max_drop: float, labels: tuple[str, str]) -> tuple[SessionCheck, ...]:
    """One check per group of `compare`'s group rows (its `(all)` row only when there are several
    groups): the interval's upper bound of median(new) - median(base) must be >= -max_drop."""
    base, new = labels
    rows = [g for g in groups if g["group"] != "(all)"]
    if len(rows) > 1:
        rows += [g for g in groups if g["group"] == "(all)"]
    out = []
    for g in rows:
        name = f"arm {new}'s median efficiency falls at most {to_fixed(max_drop * 100, 1)} pp below arm {base}'s " \
               f"(group {g['group']})"
        if g["ci_high"] is None:
            empty = [label for label, side in ((base, "base"), (new, "new")) if not g[f"{side}_n"]]
            out.append(SessionCheck(key="maxDrop", name=name, passed=False,
                                    detail=f"no scored run of arm {' and '.join(empty)} in this group"))
            continue
        passed = g["ci_high"] >= -max_drop
        conf = round(g["confidence"] * 100, 6)
        out.append(SessionCheck(
            key="maxDrop", name=name, passed=passed,
            detail=f"median {percent(g['base_median'])} ({base}, {g['base_n']} runs) -> {percent(g['new_median'])} "
            f"({new}, {g['new_n']} runs): {points(g['difference'])} pp, {conf:g}% CI [{points(g['ci_low'])}, "
            f"{points(g['ci_high'])}] pp, upper bound {'>=' if passed else '<'} {points(-max_drop)} pp "
            f"(bootstrap {g['resamples']} resamples, seed {g['seed']})",
        ))
    return tuple(out)
