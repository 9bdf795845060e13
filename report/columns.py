"""Plain aligned text columns: the layout every text table shares (report/tables.py, the
sufficiency block), apart from the tables' CSV and statistics, which a one-run block needs none of."""

from __future__ import annotations

from typing import Iterable, Sequence

from citeledger.core import printable


def layout(headers: Sequence[str], rows: Iterable[Sequence[str]], right: Sequence[bool], indent: str = "  ") -> str:
    """Plain aligned columns (no colour, so it pipes and diffs cleanly)."""
    rows = [[printable(str(c)) for c in r] for r in rows]  # a cell's newline forges no row
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells):
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return (indent + "  ".join(parts)).rstrip()

    return "\n".join([line(headers)] + [line(r) for r in rows]) + "\n"
