"""`--sufficiency` for the sweep: each session judged where it is read (engine/judged.py), pooled here
(compare's pool: engine/pooled.py).

The judging runs in score_corpus's workers, on the transcript the session's
scoring read (citeledger.corpus `extra`): the transcript is not read again, and only
the numbers come back (Sufficiency.counted: no per-call list), whatever other
`extra` the command already runs (the diagnostic join) riding along.
"""

from __future__ import annotations

from citeledger.engine.judged import Judged, judged, split  # noqa: F401 (the commands' names)
from citeledger.report.html.sufficiency import pooled_slices_section
from citeledger.report.sufficiency import PooledSufficiency, counted_dict, csv_columns, flat, render_pooled_slices
from citeledger.report.tables import SLICE_COLUMNS, SLICES, slice_of


def add_sufficiency_option(parser, per: str) -> None:
    parser.add_argument(
        "--sufficiency", action="store_true",
        help="add the reference's explore sufficiency pooled " + per + ": each answered explore call "
        "bucketed by the agent's next act, counted over every answered call (not averaged per run)",
    )


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
