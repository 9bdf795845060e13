"""The metric plugins' figures of one transcript, for the commands that show them."""

from __future__ import annotations

from citeledger.cli.limits import window_tokens


def measured(transcript, args) -> dict:
    """Every installed metric's record of `transcript`, by name (--window-tokens / CG_WINDOW_TOKENS applied)."""
    from citeledger.core import MetricOptions, measure_all, metrics

    return measure_all(transcript, MetricOptions(window_tokens=window_tokens(args)), metrics())




def metric_columns() -> tuple[str, ...]:
    from citeledger.core import metrics
    from citeledger.corpus.measured import columns_of

    return columns_of(metrics())
