"""The corpus keys of a `citeledger check` spec, judged on `sweep`'s own slice table.

`check SPEC --corpus PATH ...` sweeps the paths exactly as `citeledger sweep`
does (cli/commands/sweep.swept) and judges each floor of the spec's `corpus:`
block on one row of that table: the slice it names (every session by default)
or the `all` row of one harness arm's sessions. `pooledEfficiencyAtLeast`:
the row's `pooled` (used chars over envelope chars of its scored sessions);
`medianEfficiencyAtLeast`: its `median`; `scoredShareAtLeast`: its scored
sessions (`n`) over all its sessions (`n + not_scored`). A row with nothing to
judge (no scored session, no session, an arm not found) is not a pass. The
value and the floor in the detail line are printed with as many digits as it
takes to agree with the verdict. Nothing here prints.
"""

from __future__ import annotations

from typing import Optional, Sequence

from citeledger.core import percent, thousands
from citeledger.harness.check_session import SessionCheck, shown_pair

NAMES = {
    "pooledEfficiencyAtLeast": "pooled efficiency",
    "medianEfficiencyAtLeast": "median efficiency",
    "scoredShareAtLeast": "share of sessions scored",
}


def _scope(floor) -> str:
    if floor.arm is not None:
        return f"arm {floor.arm}"
    return "every session" if floor.slice == "all" else f"slice {floor.slice}"


def _row(floor, slices: Sequence[dict], arms: dict) -> Optional[dict]:
    """The slice row the floor is judged on (None: the arm has no session in the corpus)."""
    if floor.arm is not None:
        rows = arms.get(floor.arm)
        return None if rows is None else next(r for r in rows if r["slice"] == "all")
    return next(r for r in slices if r["slice"] == floor.slice)


def _sessions(n: int) -> str:
    return f"{thousands(n)} scored session{'' if n == 1 else 's'}"


def _measure(floor, row: dict) -> tuple[Optional[float], str]:
    """(the number judged, the words after it), or (None, why nothing can be judged)."""
    total = row["n"] + row["not_scored"]
    if floor.key == "scoredShareAtLeast":
        if not total:
            return None, "no session found"
        return row["n"] / total, f"{thousands(row['n'])} of {thousands(total)} sessions scored"
    if not row["n"]:
        return None, f"no scored session ({thousands(total)} found, none scored)"
    if floor.key == "pooledEfficiencyAtLeast":
        if row["pooled"] is None:
            return None, "no explore chars to pool"
        return row["pooled"], (f"{thousands(row['used'])} of {thousands(row['envelope'])} chars went to cited files "
                               f"over {_sessions(row['n'])}")
    return row["median"], f"over {_sessions(row['n'])}"


def corpus_check(floor, slices: Sequence[dict], arms: dict, ruleset: str) -> SessionCheck:
    """One floor judged on the ruleset's slice rows (`slices`) and its rows per arm (`arms`)."""
    scope = _scope(floor)
    name = f"{NAMES[floor.key]} >= {percent(floor.value)} ({scope})"
    row = _row(floor, slices, arms)
    if row is None:
        known = f"arms found: {', '.join(sorted(arms))}" if arms else "no session is a harness run-<arm>-<i>"
        return SessionCheck(key=floor.where, name=name, passed=False, block="corpus",
                            detail=f"no session of arm {floor.arm} in the corpus ({known})")
    value, words = _measure(floor, row)
    if value is None:
        return SessionCheck(key=floor.where, name=name, passed=False, block="corpus", detail=f"{words} ({scope})")
    passed = value >= floor.value
    shown, bound = shown_pair(value, floor.value, passed)
    head = "pooled" if floor.key == "pooledEfficiencyAtLeast" else "median"
    if floor.key == "scoredShareAtLeast":
        detail = f"{words}: {shown}% {'>=' if passed else '<'} {bound}%"
    else:
        sep = ":" if floor.key == "pooledEfficiencyAtLeast" else ""
        detail = f"{head} {shown}% {'>=' if passed else '<'} {bound}%{sep} {words}"
    return SessionCheck(key=floor.where, name=name, passed=passed, block="corpus",
                        detail=f"{detail} (ruleset {ruleset})")


def corpus_checks(floors, slices: Sequence[dict], arms: dict, ruleset: str) -> tuple[SessionCheck, ...]:
    """Every floor of the spec's `corpus:` block, in its order."""
    return tuple(corpus_check(f, slices, arms, ruleset) for f in floors)
