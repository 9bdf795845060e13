"""Sensitivity: how much each ruleset moves the numbers away from a base ruleset.

Fed one scored session at a time (every ruleset's score of it), it keeps only
numbers. Per ruleset and slice (all / single-question / multi-turn):

- pooled, median and p25 efficiency over the sessions that ruleset could score
  (an explore call with a section and an answer), and their deltas from the
  base ruleset's same statistic;
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
    "delta_pooled", "delta_median", "delta_p25", "changed", "compared",
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


class _Slice:
    __slots__ = ("effs", "used", "envelope", "changed", "compared", "deltas")

    def __init__(self):
        self.effs: list[float] = []
        self.used: list[int] = []
        self.envelope: list[int] = []
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
                a = self.acc[i][name]
                if s.status == "scored":
                    a.effs.append(s.efficiency)
                    a.used.append(s.used)
                    a.envelope.append(s.envelope)
                if base is not None:
                    a.compared += 1
                    a.changed += verdict_key(s) != verdict_key(base)
                    if s.status == "scored" and base.status == "scored":
                        a.deltas.append(s.efficiency - base.efficiency)

    def _stats(self, i: int, name: str) -> dict:
        a = self.acc[i][name]
        return {
            "n": len(a.effs),
            "pooled": pooled(a.used, a.envelope),
            "median": median(a.effs),
            "p25": quantile(a.effs, 0.25),
        }

    def rows(self) -> list[dict]:
        """One row per ruleset and slice, in ruleset order then slice order."""
        out = []
        for i, ruleset in enumerate(self.names):
            for name in SLICES:
                row = {"ruleset": ruleset, "slice": name, **self._stats(i, name)}
                base = self._stats(self.base, name)
                for key in ("pooled", "median", "p25"):
                    row[f"delta_{key}"] = _minus(row[key], base[key])
                a = self.acc[i][name]
                row["changed"], row["compared"] = a.changed, a.compared
                out.append(row)
        return out

    def deltas(self, name: str = "all") -> list[list[float]]:
        """Per ruleset, the paired per-session efficiency deltas from the base."""
        return [list(self.acc[i][name].deltas) for i in range(len(self.names))]


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
        f"  {'p25':>6}  {'Δ pt':>6}  changed"
    )
    for r in rows:
        base = r["ruleset"] == header["base"]
        d = (lambda k: "" if base else points(r[k]))
        changed = "" if base else f"{r['changed']}/{r['compared']}"
        lines.append(
            f"  {r['ruleset']:<{width}}  {r['slice']:<15}  {r['n']:>4}  {pct(r['pooled']):>6}  {d('delta_pooled'):>6}"
            f"  {pct(r['median']):>6}  {d('delta_median'):>6}  {pct(r['p25']):>6}  {d('delta_p25'):>6}  {changed}"
        )
    lines += [
        "",
        "Δ pt: percentage points from the base's same statistic; each ruleset's statistics are over the "
        "sessions it could score. changed: sessions whose credited files or status differ from the base's.",
        QUANTILE_NOTE + ".",
        ("plot: " + ", ".join(plot)) if plot else "no plot written (give --plot PATH or --out DIR)",
    ]
    return "\n".join(lines) + "\n"
