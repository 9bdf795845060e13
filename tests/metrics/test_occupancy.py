"""Residual context occupancy (metrics/occupancy.py) on runs whose figures are worked out by hand.

Each case of harness_cases.py is read by the Claude stream reader (so the run
log the reader fills is tested with the metric); the expected numbers follow
from the case's usage and character counts, as each comment shows. A tool
use's own JSON counts in its gap's characters but not in its tool characters,
so the ratios below are tool characters over deltas.
"""

from __future__ import annotations

import pytest

from harness_cases import write_case

from citeledger.core import MetricOptions, metrics, readers
from citeledger.metrics.occupancy import FALLBACK_CHARS_PER_TOKEN, OccupancyMetric, occupancy


def measure(tmp_path, case, window=200_000):
    transcript = readers()["claude-stream"]().read(write_case(tmp_path, case))
    return OccupancyMetric().measure(transcript, MetricOptions(window_tokens=window))


def test_registered_as_a_metric_plugin():
    assert metrics()["occupancy"] is OccupancyMetric


def test_attribution_at_the_calibrated_ratio(tmp_path):
    # 10,000 explore chars over a 4,000-token gap, 5,000 Read chars over 2,000: 2.5 chars/token.
    o = measure(tmp_path, "basic")
    assert o.chars_per_token == 2.5 and o.calibrated
    assert (o.residual.codegraph, o.residual.read, o.residual_file_access) == (4000, 2000, 2000)
    assert (o.final_context, o.fixed, o.evicted, o.requests) == (16000, 10000, 0, 3)
    assert (o.chars.codegraph, o.results.codegraph, o.chars.read, o.results.read) == (10000, 1, 5000, 1)
    assert o.base == 16000 - 6000
    assert o.dispersion == 0.0  # both gaps are more than 95% one result, priced exactly


def test_usage_counted_once_per_message_id(tmp_path):
    # thinking + tool_use are two events of one request: 3 requests, not 5.
    o = measure(tmp_path, "dupe")
    assert o.requests == 3
    assert o.residual.codegraph == 4000


def test_compaction_empties_what_was_resident(tmp_path):
    # Contributed 4,000 + 2,000 explore tokens; the boundary evicts the first 4,000.
    o = measure(tmp_path, "compaction")
    assert o.compactions == 1
    assert (o.residual.codegraph, o.contributed.codegraph, o.evicted) == (2000, 6000, 4000)


def test_shortfall_evicts_oldest_first(tmp_path):
    # The last gap grew 500 tokens for 4,000 tokens of Read: 3,500 shed, from the older explore result.
    o = measure(tmp_path, "micro")
    assert (o.residual.codegraph, o.residual.read, o.evicted) == (500, 4000, 3500)


def test_segments_continue_one_context(tmp_path):
    o = measure(tmp_path, "stitched")
    assert (o.requests, o.residual.codegraph, o.final_context) == (3, 4000, 14600)


def test_shedding_gap_is_dropped_from_the_calibration(tmp_path):
    # Clean gaps at 2.0, 2.0 and 5.0 chars/token: the lower median is 2.0, the 5.0 gap (> 1.5 x 2.0)
    # is dropped, so (4,000 + 4,000) / (2,000 + 2,000) = 2.0. At 2.0 the last gap's 10,000 Bash chars
    # are 5,000 tokens for a 2,000-token delta: 3,000 shed, oldest first (codegraph's 2,000, then 1,000 of Grep's).
    o = measure(tmp_path, "shedding")
    assert o.chars_per_token == 2.0 and o.calibrated
    assert (o.residual.codegraph, o.residual.search, o.residual.bash, o.evicted) == (0, 1000, 5000, 3000)
    assert o.residual_file_access == 6000


def test_fallback_to_every_growing_gap(tmp_path):
    # No gap has more than 500 chars: all characters of both gaps over both deltas,
    # (300 + 22) + (400 + 24) over 200 + 300 (a tool use's JSON input and name count: 22 and 24).
    o = measure(tmp_path, "fallback-growing")
    assert o.chars_per_token == 746 / 500 and o.calibrated
    assert o.dispersion is None


def test_fallback_ratio_when_there_is_no_gap(tmp_path):
    o = measure(tmp_path, "fallback-none")
    assert (o.chars_per_token, o.calibrated, o.dispersion) == (FALLBACK_CHARS_PER_TOKEN, False, None)
    assert (o.final_context, o.fixed, o.requests) == (5000, 5000, 1)


def test_dispersion_is_the_median_pricing_error(tmp_path):
    # 3,000 and 3,300 chars over 1,000 tokens each: pooled 3.15; each result is priced
    # 952.4 or 1,047.6 tokens against 1,000, an error of 1/21 either way.
    o = measure(tmp_path, "dispersion")
    assert o.chars_per_token == 6300 / 2000
    assert o.dispersion == pytest.approx(1 / 21)


def test_prompt_is_input_and_both_cache_counts(tmp_path):
    o = measure(tmp_path, "usage-mix")
    # m1: 3 + 12,000 + 900; m2: 5 + 12,900 + 2,100; m3 logs no usage (0); the id-less event is no request.
    assert (o.fixed, o.requests, o.final_context) == (12903, 3, 0)


def test_window_is_an_option(tmp_path):
    o = measure(tmp_path, "basic", window=1_000_000)
    data = OccupancyMetric().as_json(o)
    assert data["window_tokens"] == 1_000_000
    assert data["families"]["codegraph"]["share_of_window"] == 4000 / 1_000_000
    assert data["families"]["codegraph"]["share_of_context"] == 4000 / 16000
    assert data["families"]["file_access"]["residual"] == 2000


def test_no_context_logged_is_absent_not_zero():
    from citeledger.core import Transcript

    bare = Transcript(name="x", files=("x",), responses=(), results=(), assistant_texts=(), warnings=())
    assert OccupancyMetric().measure(bare, MetricOptions()) is None
    assert OccupancyMetric().as_json(None) is None


def test_results_before_the_first_request_count_as_chars_only():
    from citeledger.core import Origin, Request, ToolOutput, Usage

    here = Origin("f", 1)
    context = (ToolOutput(name="Read", key="a", chars=900, error=False, no_such_tool=False, origin=here),
               Request(usage=Usage(input_tokens=100), origin=here))
    o = occupancy(context, 200_000)
    assert (o.chars.read, o.results.read, o.residual.read, o.requests) == (900, 1, 0, 1)


def test_evicting_from_a_long_resident_queue_is_linear_in_the_gaps():
    # Issue 45 item 14: the oldest result was popped from a list's front (40,000 gaps: 3 s, where
    # 10,000 took 0.1 s). n gaps that each add a result, then n that each shed the oldest one.
    from cpu_time import grows_linearly

    from citeledger.metrics.occupancy import _Gap, _resident

    def make(n):
        growing = [_Gap(delta=1_000, by_family={"codegraph": 4_000}) for _ in range(n)]
        shedding = [_Gap(delta=-999, by_family={"codegraph": 4}) for _ in range(n)]
        return lambda: _resident(growing + shedding, 4.0)

    linear, small, large = grows_linearly(make, 10_000)
    assert linear, f"20,000 gaps: {small:.3f} s; 80,000: {large:.3f} s"
