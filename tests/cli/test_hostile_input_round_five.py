"""Hostile input, round five (issue 45): the gate, the harness report, the fleet, the cache and
third-party plugins. Each test is named for what the hostile input does; none may end in an
internal error (exit 3), a hang or a traceback, and each refusal is one line naming what it refuses.
Most run in this process (the CLI's `main`); what needs a process of its own uses test_hostile_input's
`run` (forked, memory-capped, hang-guarded).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import explored, response, section, write_jsonl
from citeledger.cli import main

INTERNAL = 3


def _session(path: Path, *paths: str, answer: str = "see lib/a.js", extra=()) -> Path:
    rows = explored("t1", "q", response(*(section(p, body="x\n") for p in paths)))
    return write_jsonl(path, [*rows, *extra, {"type": "result", "subtype": "success", "result": answer}])


def test_a_second_sweep_into_an_out_folder_inside_the_swept_folder_does_not_read_its_own_report(tmp_path, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    _session(logs / "run.jsonl", "lib/a.js")
    for _ in range(2):
        assert main(["sweep", str(logs), "--out", str(logs / "report"), "-q", "-j1"]) == 0
        out, err = capsys.readouterr()
        assert "sweep.jsonl" not in err
    lines = (logs / "report" / "sweep.jsonl").read_text().splitlines()
    sessions = [json.loads(line) for line in lines if json.loads(line)["record"] == "session"]
    assert [s["inputs"] for s in sessions] == [[str(logs / "run.jsonl")]]


# ---------------------------------------------------------------- item 14: check's fixtures x reports


def test_a_spec_of_many_fixtures_over_a_sidecar_of_many_reports_costs_their_sum_not_their_product():
    from types import SimpleNamespace

    from cpu_time import grows_linearly

    from citeledger.cli.commands.check import _fixtures
    from citeledger.harness.check_spec import Assertions, Fixture

    def make(n):
        spec = SimpleNamespace(fixtures=[Fixture(id=f"f{i}", title="", query=f"asked {i}", groups=(),
                                                 assertions=Assertions()) for i in range(n)])
        reports = [SimpleNamespace(query=f"other {i}") for i in range(n)]  # none answers: each scanned all
        return lambda: _fixtures(spec, {}, reports, [], ["explore-new.jsonl"])

    linear, small, large = grows_linearly(make, 1_000)
    assert linear, f"1,000 fixtures and reports: {small:.3f} s; 4,000 each: {large:.3f} s"
