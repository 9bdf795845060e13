"""Every installed metric's record of one session: what `score --json`, the session page and
`score --harness` show beside the score. Apart from engine/session.py, so the harness's
report (which builds no SessionRequest nor SessionResult) loads neither."""

from __future__ import annotations

from typing import Optional


def measured(transcript, window_tokens: Optional[int] = None) -> dict:
    """Every installed metric's record of `transcript`, by name (`window_tokens` None: the default window)."""
    from citeledger.core import MetricOptions, measure_all, metrics

    from citeledger.engine.limits import default_window_tokens

    window = window_tokens if window_tokens is not None else default_window_tokens()
    return measure_all(transcript, MetricOptions(window_tokens=window), metrics())


def metric_columns() -> tuple[str, ...]:
    """The run and occupancy columns of a sweep's session rows: the installed metric plugins'."""
    from citeledger.core import metrics
    from citeledger.corpus.measured import columns_of

    return columns_of(metrics())
