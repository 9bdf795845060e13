"""`sweep --out DIR`'s calls.csv and files.csv (and --parquet): one row per call and per file
per session and ruleset, adding up to the session records of sweep.jsonl."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from citeledger.cli import main
from exact_csv import read_csv

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def swept(tmp_path, capsys, folder: str, *extra: str) -> tuple[Path, list[dict]]:
    out = tmp_path / "out"
    main(["sweep", str(FIXTURES / folder), "-q", "-j2", "--out", str(out), *extra])
    capsys.readouterr()
    records = [json.loads(line) for line in (out / "sweep.jsonl").read_text().splitlines()]
    return out, [r for r in records if r["record"] == "session"]


@pytest.mark.parametrize("folder", ["real", "pass", "codex", "gemini"])
def test_calls_and_files_add_up_to_the_session_records(tmp_path, capsys, folder):
    out, sessions = swept(tmp_path, capsys, folder, "--ruleset", "default", "--ruleset", "path-only")
    calls = read_csv(out / "calls.csv")  # no converters: every column a scalar
    files = read_csv(out / "files.csv")
    assert len(calls) == sum(r["calls"] for r in sessions)
    assert len(files) == sum(r["files_returned"] for r in sessions)
    for r in sessions:
        mine = calls[(calls.session == r["session"]) & (calls.ruleset == r["ruleset"])]
        assert mine.envelope.sum() == r["envelope"] and mine.used.sum() == r["used"], r["session"]
        assert sorted(mine.efficiency.dropna()) == sorted(r["call_efficiencies"])
        assert set(mine.status) <= {r["status"]}
        theirs = files[(files.session == r["session"]) & (files.ruleset == r["ruleset"])]
        assert theirs.chars.sum() == sum(f[1] for f in r["files"])
        assert int(theirs.credited.sum()) == r["files_used"]
        assert [None if pd.isna(c) else c for c in theirs.channel] == [f[2] for f in r["files"]]
    assert calls.efficiency.dtype == "float64" and files.credited.dtype == bool
    assert calls[calls.status != "scored"].efficiency.isna().all()


def test_parquet_holds_the_csv_rows_typed(tmp_path, capsys):
    out, _ = swept(tmp_path, capsys, "real", "--parquet")
    for name in ("calls", "files"):
        from_csv = pd.read_csv(out / f"{name}.csv", keep_default_na=False, dtype=str)
        from_parquet = pd.read_parquet(out / f"{name}.parquet")
        assert list(from_parquet.columns) == list(from_csv.columns)
        assert len(from_parquet) == len(from_csv) > 0
        shown = from_parquet.astype(object).where(from_parquet.notna(), "")
        assert [[str(v) if not isinstance(v, float) else repr(v) for v in row] for row in shown.values.tolist()] \
            == from_csv.values.tolist()


def test_parquet_without_pyarrow_is_one_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow raises ImportError
    code = main(["sweep", str(FIXTURES / "real"), "-q", "--out", str(tmp_path / "o"), "--parquet"])
    err = capsys.readouterr().err
    assert code == 2 and "--parquet needs pyarrow: pip install 'citeledger[parquet]'" in err
    assert not (tmp_path / "o").exists()


def test_parquet_needs_an_out_directory(capsys):
    code = main(["sweep", str(FIXTURES / "real"), "-q", "--parquet"])
    assert code == 2 and "give --out DIR" in capsys.readouterr().err
