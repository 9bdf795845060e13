"""The session keys of a `citeledger check` spec: thresholds on the transcript's own numbers.

What the CG-6 probe cannot see: whether the agent's answer cited the files
(`efficiencyAtLeast`, `lowerBoundAtLeast`: the session's efficiency and its
first-ranked channel alone, as `score` prints them), what it did next
(`readReturnedShareAtMost`: the share of answered explore calls whose next
act was a Read of a file the explore returned, the sufficiency rule's
`read_returned` bucket), and between two arms of a pass (`maxDrop`: the new
arm's median, or pooled, efficiency may fall below the baseline's by at most
this, judged on the point estimate with the bootstrap interval printed beside
it; `maxSignificantDrop` fails only when the interval's upper bound says the
drop is larger, as `compare` computes it). A number that cannot be judged (a session not
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
    block: str = "session"  # the spec's block: "session", or "corpus" (harness/check_corpus.py)


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


ARM_KEYS = ("maxDrop", "maxPooledDrop", "maxSignificantDrop")  # judged on two arms of a pass


def shown_pair(value: float, bound: float, holds: bool, scale: float = 100.0) -> tuple[str, str]:
    """`value` and `bound` as text (toFixed(1) of value * scale, more digits only when needed) that
    say what `holds` says: -5.04 pp against -5.0 pp prints as -5.04 and -5.00, never -5.0 < -5.0."""
    for digits in range(1, 8):
        a, b = to_fixed(value * scale, digits), to_fixed(bound * scale, digits)
        if (float(a) >= float(b)) == holds:
            return a, b
    return to_fixed(value * scale, 8), to_fixed(bound * scale, 8)


def _signed(text: str) -> str:
    return text if text.startswith("-") or float(text) == 0 else "+" + text


def max_drop_checks(groups: Sequence[dict], max_drop: float, labels: tuple[str, str],
                    key: str = "maxDrop") -> tuple[SessionCheck, ...]:
    """One check per group of `compare`'s group rows (its `(all)` row only when there are several
    groups). `maxDrop`: the new arm's median minus the baseline's is at least -max_drop (the point
    estimate; the bootstrap interval printed beside it); `maxPooledDrop`: the same of the pooled
    efficiencies; `maxSignificantDrop`: the interval's upper bound is at least -max_drop (the drop
    is not significant at the stated confidence)."""
    rows = [g for g in groups if g["group"] != "(all)"]
    if len(rows) > 1:
        rows += [g for g in groups if g["group"] == "(all)"]
    return tuple(_drop_check(g, max_drop, labels, key) for g in rows)


def _drop_name(g: dict, max_drop: float, labels: tuple[str, str], key: str) -> str:
    base, new = labels
    bound = to_fixed(max_drop * 100, 1)
    if key == "maxSignificantDrop":
        return (f"arm {new}'s median efficiency is not significantly ({round(g['confidence'] * 100, 6):g}% CI) "
                f"more than {bound} pp below arm {base}'s (group {g['group']})")
    measure = "pooled" if key == "maxPooledDrop" else "median"
    return f"arm {new}'s {measure} efficiency falls at most {bound} pp below arm {base}'s (group {g['group']})"


def _drop_check(g: dict, max_drop: float, labels: tuple[str, str], key: str) -> SessionCheck:
    base, new = labels
    name = _drop_name(g, max_drop, labels, key)
    empty = [label for label, side in ((base, "base"), (new, "new")) if not g[f"{side}_n"]]
    if empty:
        return SessionCheck(key=key, name=name, passed=False,
                            detail=f"no scored run of arm {' and '.join(empty)} in this group")
    measure = "pooled" if key == "maxPooledDrop" else "median"
    b, n = g[f"base_{measure}"], g[f"new_{measure}"]
    conf = f"{round(g['confidence'] * 100, 6):g}%"
    interval = f"{conf} CI [{points(g['ci_low'])}, {points(g['ci_high'])}] pp"
    boot = f"bootstrap {g['resamples']} resamples, seed {g['seed']}"
    sides = f"{measure} {percent(b)} ({base}, {g['base_n']} runs) -> {percent(n)} ({new}, {g['new_n']} runs)"
    if key == "maxSignificantDrop":
        passed = g["ci_high"] >= -max_drop
        high, bound = shown_pair(g["ci_high"], -max_drop, passed)
        detail = (f"{sides}: {points(n - b)} pp, {conf} CI [{points(g['ci_low'])}, {_signed(high)}] pp, upper bound "
                  f"{'>=' if passed else '<'} {_signed(bound)} pp ({boot})")
    else:
        passed = n - b >= -max_drop
        diff, bound = shown_pair(n - b, -max_drop, passed)
        beside = f"; {interval} ({boot})" if measure == "median" else " (a ratio of the group's summed chars)"
        detail = f"{sides}: {_signed(diff)} pp {'>=' if passed else '<'} {_signed(bound)} pp{beside}"
    return SessionCheck(key=key, name=name, passed=passed, detail=detail)
