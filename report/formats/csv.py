"""The csv format: a corpus command's table (compare's groups, sweep's slices, sensitivity's rows)."""

from __future__ import annotations

from citeledger.core import hookimpl


class Csv:
    name = "csv"
    raw = True  # written as rendered: rows end in CR LF; cells are neutralised as formulas instead
    renders = frozenset({"sweep", "compare", "sensitivity"})

    def render(self, result, table: str | None = None) -> str:
        """`table`: one of the result's tables by name (default: its first, the one --csv prints)."""
        tables = result.tables()
        columns, rows = tables[table] if table else next(iter(tables.values()))
        from citeledger.report.tables import csv_text

        return csv_text(columns, rows)


@hookimpl
def citeledger_register_formats(register):
    register(Csv)
