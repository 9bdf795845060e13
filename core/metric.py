"""What a metric plugin is: a figure measured from one transcript, beside the accountant's score.

A metric class (registered by `citeledger_register_metrics`, core/hookspecs.py)
has a `name` (its key in `score --json` and in the registry), `measure(transcript,
options) -> record` (a frozen attrs record; pure: it reads the transcript it is
given and nothing else) and `as_json(record) -> dict`. A figure a transcript's
format does not log is None in the record and null in JSON, never 0.

A metric may also give a sweep's rows scalar columns: `columns` (their
names, prefixed with the metric's name) and `row(record) -> {column: value}`
(None for a figure not logged, every column None when the record is);
corpus/measured.py makes a session's row of them.
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


def measure_all(transcript, options: MetricOptions, metrics: dict) -> dict:
    """Every metric's record of `transcript`, by name, in the registry's order."""
    return {name: cls().measure(transcript, options) for name, cls in metrics.items()}
