"""A corpus command's metric columns (corpus/measured.py): every metric's, or only those the
command shows."""

from __future__ import annotations

from pathlib import Path

from citeledger.core import MetricOptions, metrics
from citeledger.corpus import discover, score_corpus
from citeledger.corpus.measured import Measured, columns_of
from citeledger.report.occupancy_pool import OccupancyPool
from citeledger.rules.loader import load_ruleset

RUN = Path(__file__).parent.parent / "fixtures" / "pass" / "cg22" / "ab-express" / "run-new-1.jsonl"
DEFAULT = load_ruleset("default")


def measured(columns=None) -> dict:
    refs, _ = discover([str(RUN)])
    (outcome,) = score_corpus(refs, [DEFAULT], 1, extra=Measured(None, MetricOptions(), columns))
    made, row = outcome.extra
    assert made is None
    return row


def test_every_metric_column_by_default_and_only_the_shown_metrics_when_asked(monkeypatch):
    whole = measured()
    assert tuple(whole) == columns_of(metrics()) and set(OccupancyPool.COLUMNS) < set(whole)
    asked = []
    for cls in metrics().values():
        real = cls.measure
        monkeypatch.setattr(cls, "measure", lambda self, *a, _real=real, _name=cls.name: asked.append(_name) or _real(self, *a))
    shown = measured(OccupancyPool.COLUMNS)
    assert asked == ["occupancy"]  # the run metric, whose columns a text sweep never shows, is not measured
    assert shown == {k: v for k, v in whole.items() if k in shown} and set(OccupancyPool.COLUMNS) <= set(shown)
    assert OccupancyPool.pooled(shown) == OccupancyPool.pooled(whole) is not None
