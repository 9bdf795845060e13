"""`sweep --sufficiency`'s pooling: the numbers each session's worker judged (engine/judged.py)
pooled per slice (compare's pool per group and side: engine/pooled.py). The option itself is
the command line's (cli/sufficiency.py)."""

from __future__ import annotations

from citeledger.report.html.sufficiency import pooled_slices_section
from citeledger.report.sufficiency import PooledSufficiency, counted_dict, csv_columns, flat, render_pooled_slices
from citeledger.report.tables import SLICE_COLUMNS, SLICES, slice_of


class SlicePool:
    """sweep --sufficiency: the sessions' numbers pooled per slice (all, single-question, multi-turn).

    Sufficiency depends on no ruleset but for its explore tool (the first ruleset's, as the
    transcript is read): one pool, the same numbers on every ruleset's slice rows and
    session records.
    """

    def __init__(self):
        self.pool = PooledSufficiency(SLICES)

    def add_session(self, turns: int, counted, rows: list[dict]) -> None:
        """Pool one session's numbers (None: it was not read) and put them on its records."""
        for label in ("all", slice_of(turns)):
            self.pool.add(label, counted)
        self.mark(rows, counted)

    @staticmethod
    def mark(rows: list[dict], counted) -> None:
        """Put one session's numbers (None: it was not read) on its records (where they are made)."""
        for row in rows:
            row["sufficiency"] = None if counted is None else counted_dict(counted)

    def add_to(self, slice_rows: list[list[dict]]) -> None:
        for rows in slice_rows:
            for row in rows:
                row["sufficiency"] = self.pool.dict(row["slice"])

    def text(self) -> str:
        return render_pooled_slices({name: (self.pool.get(name), self.pool.sessions[name]) for name in SLICES})

    def section(self) -> str:
        return pooled_slices_section({name: self.pool.dict(name) for name in SLICES})

    @staticmethod
    def csv(rows: list[dict], on: bool) -> tuple[tuple, list[dict]]:
        """(columns, rows) of the slice CSV: with `on`, each row's pooled numbers as flat columns after its own."""
        if not on:
            return SLICE_COLUMNS, rows
        return SLICE_COLUMNS + csv_columns(""), [dict(r, **flat("", r["sufficiency"])) for r in rows]
