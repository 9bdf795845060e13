"""`sweep --out DIR`'s long tables: calls.csv and files.csv, and with --parquet the same as Parquet.

Rows come from each session's worker (report/long_rows.py, tuples in column
order) and are written as they arrive, under the --out directory's staging
(cli/output.atomic_open): nothing is kept beyond one Parquet batch.
"""

from __future__ import annotations

import contextlib
import csv
import os
import re

from citeledger.core.errors import UserError
from citeledger.cli.output import atomic_open
from citeledger.report.long_rows import CALL_COLUMNS, FILE_COLUMNS, FILE_TYPES, TYPES
from citeledger.report.tables import csv_value

BATCH = 8192  # Parquet rows held before a row group is written

# A lone surrogate (a `\ud800` escape in a transcript, a file name's undecodable byte) is no UTF-8,
# which a Parquet string must be: it is written as the CSV beside it writes it, `\ud800`.
_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_cell(value):
    """`value`, a text's lone surrogates written as backslash escapes (CSV's `backslashreplace`)."""
    if isinstance(value, str) and _SURROGATE.search(value):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def require_pyarrow() -> None:
    """--parquet without pyarrow: one line saying what to install, before anything is read."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise UserError("--parquet needs pyarrow: pip install 'citeledger[parquet]'") from None


class Table:
    """One long table: its CSV writer, and its Parquet writer when asked."""

    def __init__(self, stack: contextlib.ExitStack, out: str, name: str, columns, types, parquet: bool):
        self.columns = columns
        fh = stack.enter_context(atomic_open(os.path.join(out, f"{name}.csv"), "w"))
        self.csv = csv.writer(fh)
        self.csv.writerow(columns)
        self.parquet = None
        self.batch: list[tuple] = []
        if parquet:
            import pyarrow as pa
            import pyarrow.parquet as pq

            kinds = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_()}
            self.schema = pa.schema([(c, kinds[types[c]]) for c in columns])
            self.texts = {c for c in columns if types[c] == "string"}
            sink = stack.enter_context(atomic_open(os.path.join(out, f"{name}.parquet"), "wb"))
            self.parquet = stack.enter_context(pq.ParquetWriter(sink, self.schema))
            stack.callback(self.flush)  # runs before the writer closes (the stack unwinds in reverse)

    def add(self, rows) -> None:
        self.csv.writerows([csv_value(v) for v in row] for row in rows)
        if self.parquet is not None:
            self.batch.extend(rows)
            if len(self.batch) >= BATCH:
                self.flush()

    def flush(self) -> None:
        if self.parquet is None or not self.batch:
            return
        import pyarrow as pa

        columns = list(zip(*self.batch))
        table = {c: [utf8_cell(x) for x in v] if c in self.texts else list(v) for c, v in zip(self.columns, columns)}
        self.parquet.write_table(pa.table(table, schema=self.schema))
        self.batch = []


class LongTables:
    """calls.csv and files.csv (and .parquet) in an --out directory, filled session by session."""

    def __init__(self, stack: contextlib.ExitStack, out: str, parquet: bool):
        self.calls = Table(stack, out, "calls", CALL_COLUMNS, TYPES, parquet)
        self.files = Table(stack, out, "files", FILE_COLUMNS, FILE_TYPES, parquet)

    def add(self, calls, files) -> None:
        self.calls.add(calls)
        self.files.add(files)
