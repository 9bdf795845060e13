"""`--sufficiency`'s pooling for the corpus commands: the numbers each session's worker judged
(engine/judged.py) pooled per slice (a sweep) or per group and side (compare). The option
itself is the command line's (cli/sufficiency.py)."""

from __future__ import annotations

from citeledger.report.compare import GROUP_COLUMNS, SIDES
from citeledger.report.html.sufficiency import pooled_groups_section, pooled_slices_section
from citeledger.report.sufficiency import (
    PooledSufficiency, counted_dict, csv_columns, flat, from_counted, render_pooled_groups, render_pooled_slices,
)
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


ALL = "(all)"


class GroupPool:
    """compare --sufficiency: the sessions' numbers pooled per group and side, and per side over
    every group (`(all)`: every answered call of an arm's runs, as compare-arms.mjs pools an arm)."""

    def __init__(self):
        self.pool = PooledSufficiency()

    def add(self, side: str, row: dict, key) -> None:
        """A session row as Comparison.add sees it: other arms and ungrouped sessions are not pooled."""
        if row["status"] == "other-arm":
            return
        group = key(row)
        if group is None:
            return
        data = row.get("sufficiency")
        counted = None if data is None else from_counted(data)
        for label in (group, ALL):
            self.pool.add((label, side), counted)

    def add_to(self, groups: list[dict]) -> None:
        for g in groups:
            for side in SIDES:
                g[f"{side}_sufficiency"] = self.pool.dict((g["group"], side))

    def _rows(self, groups: list[dict]):
        return [(g["group"], g["base_sufficiency"], g["new_sufficiency"]) for g in groups]

    def text(self, groups: list[dict], labels) -> str:
        return render_pooled_groups([(name, from_counted(b), from_counted(n)) for name, b, n in self._rows(groups)],
                                    labels)

    def section(self, groups: list[dict], labels) -> str:
        return pooled_groups_section(self._rows(groups), labels)

    @staticmethod
    def csv(rows: list[dict], on: bool) -> tuple[tuple, list[dict]]:
        """(columns, rows) of the group CSV: with `on`, each side's pooled numbers as flat columns."""
        if not on:
            return GROUP_COLUMNS, rows
        columns = GROUP_COLUMNS + csv_columns("base_") + csv_columns("new_")
        return columns, [dict(r, **flat("base_", r["base_sufficiency"]), **flat("new_", r["new_sufficiency"]))
                         for r in rows]
