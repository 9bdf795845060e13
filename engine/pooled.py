"""compare --sufficiency's accumulator: the sessions' numbers pooled per group and side.

The pooled numbers land in the group rows (`base_sufficiency`, `new_sufficiency`), from which
the formats render them (report/compare.pooled_groups_text, groups_csv; the page's section).
"""

from __future__ import annotations

from citeledger.report.compare import SIDES
from citeledger.report.sufficiency import PooledSufficiency, from_counted

ALL = "(all)"


class GroupPool:
    """The sessions' numbers pooled per group and side, and per side over every group (`(all)`:
    every answered call of an arm's runs, as compare-arms.mjs pools an arm)."""

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
        """Each side's pooled numbers into its group row."""
        for g in groups:
            for side in SIDES:
                g[f"{side}_sufficiency"] = self.pool.dict((g["group"], side))
