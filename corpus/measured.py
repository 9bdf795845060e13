"""The metrics' figures of a corpus's sessions as scalar sweep columns, measured in the worker
from the transcript it read (core/metric.py says what a metric is)."""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.core import MetricOptions, measure_all, metrics as installed_metrics


def columns_of(metrics: dict) -> tuple[str, ...]:
    """Every metric's sweep columns, in the registry's order."""
    return tuple(column for cls in metrics.values() for column in getattr(cls, "columns", ()))


def row_of(records: dict, metrics: dict) -> dict:
    """The sweep columns of one transcript's metric records (`measure_all`'s)."""
    row: dict = {}
    for name, cls in metrics.items():
        columns = getattr(cls, "columns", ())
        if not columns:
            continue
        record = records.get(name)
        values = cls().row(record) if record is not None else {}
        if tuple(values) == columns:  # every column, in order (the built-in metrics'): as it is
            row.update(values)
        else:
            row.update({column: values.get(column) for column in columns})
    return row


class Measured:
    """score_corpus's `extra` for a corpus command: (what `inner` made, the session's metric
    columns, `row_of`), made in the worker from the transcript it read (nothing is read
    again). Picklable.

    `columns`, when given, are the only metric columns the command shows: only the metrics
    that give one of them are measured (a text sweep shows the occupancy pool, not the rest).
    """

    def __init__(self, inner, options: MetricOptions, columns: Optional[frozenset] = None):
        self.inner = inner
        self.options = options
        self.columns = columns

    def __call__(self, ref, transcript, score):
        made = self.inner(ref, transcript, score) if self.inner is not None else None
        known = installed_metrics()
        if self.columns is not None:
            known = {name: cls for name, cls in known.items() if self.columns.intersection(getattr(cls, "columns", ()))}
        return made, row_of(measure_all(transcript, self.options, known), known)


def split_measured(outcome):
    """(the outcome as its command knew it, its metric columns or None): an unread session has none."""
    made, columns = outcome.extra if outcome.extra is not None else (None, None)
    return attrs.evolve(outcome, extra=made), columns
