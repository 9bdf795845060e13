"""The csv format: a corpus command's table (compare's groups, sweep's slices, sensitivity's rows)."""

from __future__ import annotations

import csv
import io

from citeledger.core import hookimpl


class Csv:
    name = "csv"
    renders = frozenset({"sweep", "compare", "sensitivity"})

    def render(self, result, table: str | None = None) -> str:
        """`table`: one of the result's tables by name (default: its first, the one --csv prints)."""
        tables = result.tables()
        columns, rows = tables[table] if table else next(iter(tables.values()))
        return csv_text(columns, rows)


def csv_text(columns, rows) -> str:
    from citeledger.report.tables import csv_value

    buffer = io.StringIO(newline="")
    w = csv.writer(buffer)
    w.writerow(columns)
    for r in rows:
        w.writerow([csv_value(r[c]) for c in columns])
    return buffer.getvalue()


@hookimpl
def citeledger_register_formats(register):
    register(Csv)
