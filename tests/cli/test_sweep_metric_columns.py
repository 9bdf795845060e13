"""sweep's session rows carry the run and occupancy figures as scalar columns (docs/sweep.md)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from citeledger.cli import main
from citeledger.engine.measures import metric_columns

PASS = Path(__file__).parents[1] / "fixtures" / "pass" / "cg22" / "headless-express"
CODEX = Path(__file__).parents[1] / "fixtures" / "codex"


def sweep_rows(capsys, *paths) -> list[dict]:
    main(["sweep", *map(str, paths), "--json", "-q"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return [r for r in lines if r["record"] == "session"]


def score_json(capsys, *files) -> dict:
    main(["score", "--json", *map(str, files)])
    return json.loads(capsys.readouterr().out)


def test_a_row_carries_what_score_json_measures(capsys):
    row = next(r for r in sweep_rows(capsys, PASS) if r["session"] == "run-headless-with.jsonl")
    data = score_json(capsys, PASS / "run-headless-with.jsonl")
    occupancy, run = data["occupancy"], data["run"]
    assert row["occupancy_final_context"] == occupancy["final_context"] == 16385
    assert row["occupancy_codegraph"] == occupancy["families"]["codegraph"]["residual"]
    assert row["occupancy_retrieval"] == (occupancy["families"]["codegraph"]["residual"]
                                          + occupancy["families"]["file_access"]["residual"])
    assert (row["run_turns"], row["run_tokens_processed"], row["run_segments"]) == (run["turns"], run["tokens_processed"], 2)
    assert row["run_calls_codegraph"] == run["by_family"]["codegraph"] == 2


def test_a_codex_row_marks_what_a_rollout_does_not_log_absent(capsys):
    row = sweep_rows(capsys, CODEX)[0]
    assert row["occupancy_final_context"] is None and row["occupancy_retrieval_share"] is None
    assert row["run_cost_usd"] is None and row["run_tools_exposed"] is None
    assert row["run_tool_calls"] >= 0  # tool calls are listed for every format


def test_sessions_csv_has_every_metric_column_as_a_scalar(tmp_path, capsys):
    main(["sweep", str(PASS), "--out", str(tmp_path / "o"), "-q"])
    capsys.readouterr()
    with open(tmp_path / "o" / "sessions.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert set(metric_columns()) <= set(rows[0])
    without = next(r for r in rows if r["session"] == "run-headless-without.t2.jsonl" or "without" in r["session"])
    assert float(without["occupancy_final_context"]) > 0 and without["run_codegraph_calls"] == "0"
