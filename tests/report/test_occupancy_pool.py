"""report/occupancy_pool.py: sweep's occupancy per slice and arm, worked by hand."""

from citeledger.report.occupancy_pool import OccupancyPool, render_pooled_occupancy


def figures(ctx, retrieval):
    """What the pool keeps of a session's metric columns (made in the worker)."""
    return OccupancyPool.pooled({"occupancy_final_context": ctx, "occupancy_retrieval": retrieval,
                                 "occupancy_retrieval_share": retrieval / ctx})


def test_medians_and_ranges_per_slice_and_arm():
    pool = OccupancyPool()
    pool.add("single-question", "new", figures(10_000, 1_000))
    pool.add("single-question", "new", figures(20_000, 1_000))
    pool.add("multi-turn", "base", figures(30_000, 3_000))
    pool.add("single-question", None, figures(40_000, 0))  # outside a pass: (all) only
    pool.add("single-question", "new", OccupancyPool.pooled(None))  # not read: nothing
    pool.add("single-question", "new", OccupancyPool.pooled({"occupancy_final_context": None}))  # a Codex rollout
    records = {(r["slice"], r["arm"]): r for r in pool.records()}
    assert list(records) == [("all", "(all)"), ("all", "base"), ("all", "new"), ("single-question", "(all)"),
                             ("single-question", "new"), ("multi-turn", "(all)"), ("multi-turn", "base")]
    everything = records[("all", "(all)")]
    assert everything["sessions"] == 4
    assert everything["final_context"] == {"median": 25_000, "min": 10_000, "max": 40_000}  # (20,000 + 30,000) / 2
    share = records[("single-question", "new")]["retrieval_share"]
    assert (share["min"], share["max"]) == (0.05, 0.1) and abs(share["median"] - 0.075) < 1e-15
    text = render_pooled_occupancy(pool.records())
    assert "  single-question  new    2  15,000 [10,000–20,000]                     1,000  7.5% [5.0%–10.0%]" in text


def test_no_session_with_prompt_sizes_prints_nothing():
    assert render_pooled_occupancy(OccupancyPool().records()) == ""
