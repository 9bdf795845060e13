"""sweep's occupancy pooled per slice and arm: medians and ranges of the final context, the
retrieval residual and its share of the final context (docs/sweep.md "Occupancy per slice and arm").

Fed in the parent with each session's metric columns (`occupancy_*`, from
the workers); a session whose format logs no prompt sizes (a Codex rollout,
a Gemini session) or that was not read adds nothing. Arms are the harness's
labels (`run-<arm>-<i>`, `run-headless-<arm>`); `(all)` pools every session
of the slice, arm or not.
"""

from __future__ import annotations

from typing import Optional

from citeledger.report.arm_table import pct1, span, spread, tokens

ALL_ARMS = "(all)"
POOLED_RECORD = "pooled-occupancy"  # the JSON record's type
FIGURES = (("final_context", "occupancy_final_context"), ("retrieval", "occupancy_retrieval"),
           ("retrieval_share", "occupancy_retrieval_share"))
HEADINGS = ("slice", "arm", "n", "final context (tok)", "retrieval residual (tok)", "retrieval share")


class OccupancyPool:
    COLUMNS = frozenset(column for _, column in FIGURES)  # the metric columns it reads

    def __init__(self):
        self.pools: dict = {}  # (slice, arm) -> [(final context, retrieval, retrieval share) per session]

    @staticmethod
    def pooled(figures) -> Optional[tuple]:
        """What the pool keeps of a session's metric columns (made in the worker: only this crosses
        back); None when it logs no prompt sizes or was not read."""
        if not figures or figures.get("occupancy_final_context") is None:
            return None
        return tuple(figures[column] for _, column in FIGURES)

    def add(self, slice_label: str, arm, one: Optional[tuple]) -> None:
        """One session (`slice_label`: single-question or multi-turn; `arm` None outside a pass),
        `one` its `pooled` figures."""
        if one is None:
            return
        pools = self.pools
        for key in ((slice_label, ALL_ARMS), ("all", ALL_ARMS), (slice_label, arm), ("all", arm)):
            if key[1] is not None:
                pools.setdefault(key, []).append(one)

    def records(self) -> list[dict]:
        """One `pooled-occupancy` record per slice and arm with sessions: all first, then each slice; (all) first."""
        order = {"all": 0, "single-question": 1, "multi-turn": 2}
        keys = sorted(self.pools, key=lambda k: (order[k[0]], k[1] != ALL_ARMS, k[1]))
        out = []
        for slice_label, arm in keys:
            sessions = self.pools[(slice_label, arm)]
            record = {"record": POOLED_RECORD, "slice": slice_label, "arm": arm, "sessions": len(sessions)}
            for index, (name, _) in enumerate(FIGURES):
                record[name] = dict(zip(ENDS, spread([one[index] for one in sessions]) or (None,) * len(ENDS)))
            out.append(record)
        return out


ENDS = ("median", "min", "max")
POOLED_TITLE = ("Residual context occupancy (CG-7), pooled per slice and arm: median [min–max] over the sessions "
                "that log prompt sizes")
# The slices CSV's pooled occupancy columns: the `(all)` arm's record of the row's slice, flat.
SLICE_COLUMNS = ("occupancy_sessions",) + tuple(f"occupancy_{name}_{end}" for name, _ in FIGURES for end in ENDS)


def slice_cells(records: list[dict], slice_label: str) -> dict:
    """SLICE_COLUMNS of one slice row: its `(all)` record's figures; 0 sessions and every figure
    empty (None) when no session of the slice logs prompt sizes. The figures depend on no ruleset: every ruleset's row has them."""
    found = next((r for r in records if r["slice"] == slice_label and r["arm"] == ALL_ARMS), None)
    if found is None:
        return {**dict.fromkeys(SLICE_COLUMNS), "occupancy_sessions": 0}
    cells = {"occupancy_sessions": found["sessions"]}
    cells.update({f"occupancy_{name}_{end}": found[name][end] for name, _ in FIGURES for end in ENDS})
    return cells


def _spanned(record: dict, name: str, fmt, scale: float = 1) -> str:
    """`median [min–max]` of a pooled figure (span() of the three prints exactly that)."""
    figure = record[name]
    return span([figure["min"] * scale, figure["median"] * scale, figure["max"] * scale], fmt)


def shown_cells(record: dict) -> tuple:
    """A record's figures as the text block prints them: (final context, retrieval, retrieval share)."""
    return (_spanned(record, "final_context", tokens), _spanned(record, "retrieval", tokens),
            _spanned(record, "retrieval_share", pct1, 100))


def render_pooled_occupancy(records: list[dict]) -> str:
    """The text block (empty when no session logs prompt sizes)."""
    if not records:
        return ""
    rows = [HEADINGS] + [(r["slice"], r["arm"], str(r["sessions"]), *shown_cells(r)) for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADINGS))]
    lines = [POOLED_TITLE]
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])] + [c.rjust(w) for c, w in zip(row[2:], widths[2:])]
        lines.append("  " + "  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
