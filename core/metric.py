"""What a metric plugin is: a figure measured from one transcript, beside the accountant's score.

A metric class (registered by `citeledger_register_metrics`, core/hookspecs.py)
has a `name` (its key in `score --json` and in the registry), `measure(transcript,
options) -> record` (a frozen attrs record; pure: it reads the transcript it is
given and nothing else) and `as_json(record) -> dict`. A figure a transcript's
format does not log is None in the record and null in JSON, never 0.

A metric may also give a sweep's rows scalar columns: `columns` (their
names, prefixed with the metric's name) and `row(record) -> {column: value}`
(None for a figure not logged, every column None when the record is).
"""

from __future__ import annotations

from typing import Protocol

import attrs

from citeledger.core.ranges import bounded

# The nominal context window the occupancy shares are of (Claude's 200k);
# a host with a 1M window says so (`--window-tokens`, CG_WINDOW_TOKENS).
DEFAULT_WINDOW_TOKENS = 200_000
WINDOW_TOKENS_RANGE = (1_000, 10_000_000)


@attrs.frozen
class MetricOptions:
    """The choices a metric's figures depend on (one record for every metric)."""

    window_tokens: int = bounded(*WINDOW_TOKENS_RANGE, default=DEFAULT_WINDOW_TOKENS)


class Metric(Protocol):
    name: str

    def measure(self, transcript, options: MetricOptions): ...

    def as_json(self, record) -> dict: ...


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


def measure_all(transcript, options: MetricOptions, metrics: dict) -> dict:
    """Every metric's record of `transcript`, by name, in the registry's order."""
    return {name: cls().measure(transcript, options) for name, cls in metrics.items()}


class Measured:
    """score_corpus's `extra` for a corpus command: (what `inner` made, the session's metric
    columns, `row_of`), made in the worker from the transcript it read (nothing is read
    again). Picklable."""

    def __init__(self, inner, options: MetricOptions):
        self.inner = inner
        self.options = options

    def __call__(self, ref, transcript, score):
        from citeledger.core.plugins import metrics

        made = self.inner(ref, transcript, score) if self.inner is not None else None
        known = metrics()
        return made, row_of(measure_all(transcript, self.options, known), known)


def split_measured(outcome):
    """(the outcome as its command knew it, its metric columns or None): an unread session has none."""
    made, columns = outcome.extra if outcome.extra is not None else (None, None)
    return attrs.evolve(outcome, extra=made), columns
