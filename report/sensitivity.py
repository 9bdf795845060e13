"""Sensitivity: how much each ruleset moves the numbers away from a base ruleset.

Fed one scored session at a time (every ruleset's score of it), it keeps only
numbers. Per ruleset and slice (all / single-question / multi-turn):

- pooled, median and p25 efficiency over the sessions that ruleset could score
  (an explore call with a section and an answer), and their deltas from the
  base ruleset: each statistic of the ruleset minus the base's, both over the
  sessions the two score (`paired`; `dropped`: sessions only one of them
  scores), never over two different sets of sessions;
- `changed`: sessions, readable under both, whose verdicts differ from the
  base's: a different set of credited files, or a different status (scored /
  no-explore / no-answer);
- per-session paired deltas (ruleset minus base, sessions scored under both),
  for the plot.

Quantiles are citeledger.report.stats' (type 7), as everywhere else.
"""

from __future__ import annotations

from typing import Optional, Sequence

import attrs

from citeledger.core import points
from citeledger.report.stats import median, pooled, quantile
from citeledger.report.sweep import QUANTILE_NOTE
from citeledger.report.tables import SLICES, pct, slice_of
from citeledger.report.text import added_line

COLUMNS = (
    "ruleset", "slice", "n", "pooled", "median", "p25",
    "delta_pooled", "delta_median", "delta_p25", "changed", "compared", "paired", "dropped",
)


@attrs.frozen(slots=True, kw_only=True)
class Verdicts:
    """What sensitivity reads of one session's score under one ruleset: made where the
    session was scored, so only these numbers cross back from a worker."""

    status: str  # scored / no-explore / no-answer ...
    efficiency: Optional[float]
    used: int
    envelope: int
    credited: frozenset  # the paths of the files it credits

    @classmethod
    def of(cls, score) -> "Verdicts":
        return cls(status=score.status, efficiency=score.efficiency, used=score.used, envelope=score.envelope,
                   credited=frozenset(f.path for f in score.files if f.verdict.credited))


def verdict_key(verdicts: Verdicts) -> tuple:
    """What counts as a session's verdicts: its status and the files it credits."""
    return verdicts.status, verdicts.credited


class _Numbers:
    """Efficiencies and chars of a list of scored sessions."""

    __slots__ = ("effs", "used", "envelope")

    def __init__(self):
        self.effs: list[float] = []
        self.used: list[int] = []
        self.envelope: list[int] = []

    def add(self, verdicts: Verdicts) -> None:
        self.effs.append(verdicts.efficiency)
        self.used.append(verdicts.used)
        self.envelope.append(verdicts.envelope)

    def stats(self) -> dict:
        return {"n": len(self.effs), "pooled": pooled(self.used, self.envelope), "median": median(self.effs),
                "p25": quantile(self.effs, 0.25)}


class _Slice:
    __slots__ = ("own", "paired", "paired_base", "dropped", "changed", "compared", "deltas")

    def __init__(self):
        self.own = _Numbers()  # every session this ruleset scores
        self.paired = _Numbers()  # the sessions this ruleset and the base both score ...
        self.paired_base = _Numbers()  # ... and the base's numbers of them
        self.dropped = 0  # sessions only one of the two scores
        self.changed = 0
        self.compared = 0
        self.deltas: list[float] = []  # paired, ruleset - base


class Sensitivity:
    """Accumulates outcomes scored under `names` (index `base` is the base ruleset)."""

    def __init__(self, names: Sequence[str], base: int = 0):
        self.names = tuple(names)
        self.base = base
        self.acc = [{s: _Slice() for s in SLICES} for _ in self.names]
        self.unreadable = 0  # sessions no ruleset could read

    def add(self, turns: int, scores: Sequence[Optional[Verdicts]]) -> None:
        """One session: its number of turns and its Verdicts under each ruleset (None: unreadable)."""
        if all(s is None for s in scores):
            self.unreadable += 1
            return
        slices = ("all", slice_of(turns))
        base = scores[self.base]
        for i, s in enumerate(scores):
            if s is None:
                continue
            for name in slices:
                self._add_one(self.acc[i][name], s, base)

    @staticmethod
    def _add_one(a: _Slice, s: Verdicts, base: Optional[Verdicts]) -> None:
        scored = s.status == "scored"
        if scored:
            a.own.add(s)
        base_scored = base is not None and base.status == "scored"
        if scored and base_scored:
            a.paired.add(s)
            a.paired_base.add(base)
            a.deltas.append(s.efficiency - base.efficiency)
        elif scored or base_scored:
            a.dropped += 1
        if base is not None:
            a.compared += 1
            a.changed += verdict_key(s) != verdict_key(base)

    def rows(self) -> list[dict]:
        """One row per ruleset and slice, in ruleset order then slice order."""
        out = []
        for i, ruleset in enumerate(self.names):
            for name in SLICES:
                a = self.acc[i][name]
                row = {"ruleset": ruleset, "slice": name, **a.own.stats()}
                mine, base = a.paired.stats(), a.paired_base.stats()
                for key in ("pooled", "median", "p25"):
                    row[f"delta_{key}"] = _minus(mine[key], base[key])
                row["changed"], row["compared"] = a.changed, a.compared
                row["paired"], row["dropped"] = mine["n"], a.dropped
                out.append(row)
        return out

    def deltas(self, name: str = "all") -> list[list[float]]:
        """Per ruleset, the paired per-session efficiency deltas from the base."""
        return [list(self.acc[i][name].deltas) for i in range(len(self.names))]


def fewer_lines(base: str, rows: list[dict]) -> list[str]:
    """One warning line per ruleset that scores fewer sessions than the base, or more (the base fewer)."""
    n_of = {r["ruleset"]: r["n"] for r in rows if r["slice"] == "all"}
    out = []
    for r in rows:
        if r["slice"] != "all" or r["ruleset"] == base or not r["dropped"]:
            continue
        fewer = r["ruleset"] if r["n"] < n_of[base] else f"the base {base}"
        out.append(f"warning: ruleset {r['ruleset']} scores {r['n']} session(s), the base {base} {n_of[base]}: "
                   f"{fewer} scores fewer; its Δ are over the {r['paired']} both score ({r['dropped']} dropped)")
    return out


def _minus(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return None if a is None or b is None else a - b


def render_text(header: dict, rows: list[dict], plot: list[str]) -> str:
    lines = [
        f"citeledger sensitivity — {header['sessions']} sessions ({header['single_question']} single-question, "
        f"{header['multi_turn']} multi-turn) under {', '.join(header['paths'])}; base ruleset {header['base']}",
    ]
    if header.get("added"):
        lines.append(added_line(header["added"]).rstrip("\n"))
    lines.append("")
    width = max(len(r["ruleset"]) for r in rows)
    lines.append(
        f"  {'ruleset':<{width}}  {'slice':<15}  {'n':>4}  {'pooled':>6}  {'Δ pt':>6}  {'median':>6}  {'Δ pt':>6}"
        f"  {'p25':>6}  {'Δ pt':>6}  {'paired':>6}  {'dropped':>7}  changed"
    )
    for r in rows:
        base = r["ruleset"] == header["base"]
        d = (lambda k: "" if base else points(r[k]))
        changed = "" if base else f"{r['changed']}/{r['compared']}"
        paired, dropped = ("", "") if base else (str(r["paired"]), str(r["dropped"]))
        lines.append(
            f"  {r['ruleset']:<{width}}  {r['slice']:<15}  {r['n']:>4}  {pct(r['pooled']):>6}  {d('delta_pooled'):>6}"
            f"  {pct(r['median']):>6}  {d('delta_median'):>6}  {pct(r['p25']):>6}  {d('delta_p25'):>6}"
            f"  {paired:>6}  {dropped:>7}  {changed}".rstrip()
        )
    lines += [""] + fewer_lines(header["base"], rows)
    lines += [
        "n, pooled, median, p25: over the sessions each ruleset could score. Δ pt: percentage points from the "
        "base, both over the sessions the ruleset and the base score (paired); dropped: sessions only one of "
        "them scores. changed: sessions whose credited files or status differ from the base's.",
        QUANTILE_NOTE + ".",
        ("plot: " + ", ".join(plot)) if plot else "no plot written (give --plot PATH or --out DIR)",
    ]
    return "\n".join(lines) + "\n"
