"""sweep's slices CSV (`--csv`, `--out DIR/slices.csv`) carries the pooled occupancy of each slice,
flat and scalar, as its JSON `pooled-occupancy` records hold it (docs/sweep.md "The slice table")."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

from citeledger.cli import main
from exact_csv import read_csv

FIXTURES = Path(__file__).parents[1] / "fixtures"
PASS = FIXTURES / "pass"
CODEX = FIXTURES / "codex"


def sweep(capsys, *args) -> str:
    assert main(["sweep", "-q", "--no-diagnostics", *map(str, args)]) in (0, 1)
    return capsys.readouterr().out


def test_each_slice_row_has_its_all_arm_record_flat(capsys):
    records = [json.loads(line) for line in sweep(capsys, PASS, "--json").splitlines()]
    pooled = {r["slice"]: r for r in records if r["record"] == "pooled-occupancy" and r["arm"] == "(all)"}
    table = read_csv(io.StringIO(sweep(capsys, PASS, "--csv", "--ruleset", "default", "--ruleset", "path-only")))
    assert len(table) == 6  # two rulesets x three slices
    for _, row in table.iterrows():
        record = pooled[row["slice"]]
        assert row["occupancy_sessions"] == record["sessions"]
        for name in ("final_context", "retrieval", "retrieval_share"):
            for end in ("median", "min", "max"):
                assert row[f"occupancy_{name}_{end}"] == record[name][end], (row["slice"], name, end)
    # pandas-ready: numbers, not strings to convert
    assert all(pd.api.types.is_numeric_dtype(table[c]) for c in table.columns if c.startswith("occupancy_"))
    # every ruleset's row of a slice has the same (occupancy depends on no ruleset)
    by_ruleset = table.set_index(["ruleset", "slice"]).filter(like="occupancy_")
    assert by_ruleset.loc["default"].equals(by_ruleset.loc["path-only"])


def test_out_writes_the_same_slices_csv(capsys, tmp_path):
    printed = sweep(capsys, PASS, "--csv")
    sweep(capsys, PASS, "--out", tmp_path / "out")
    assert (tmp_path / "out" / "slices.csv").read_bytes() == printed.encode()


def test_a_sweep_that_logs_no_prompt_sizes_has_empty_cells_and_no_sessions(capsys):
    table = read_csv(io.StringIO(sweep(capsys, CODEX, "--csv")))
    assert (table["occupancy_sessions"] == 0).all()
    figures = table.filter(regex=r"^occupancy_.*_(median|min|max)$")
    assert len(figures.columns) == 9 and figures.isna().all().all()  # absent, never zero
