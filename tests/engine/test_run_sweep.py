"""engine/sweep.run_sweep: the sweep under both its callers, printing nothing itself.

The hand-built corpus (tests/fixtures/corpus/make.py): seven sessions, five scored
under `default` (beta/r2 has no explore response, gamma/r1 no answer).
"""

import contextlib
import json
from pathlib import Path

from citeledger.cli import main
from citeledger.engine.sweep import NullSink, SweepHooks, SweepRequest, run_sweep
from citeledger.rules.compiled import load_many

BASE = str(Path(__file__).parent.parent / "fixtures" / "corpus" / "base")


class Join:
    """No diagnostic join: what Diagnosed gives where no sidecar is beside the runs."""

    def join(self):
        return None

    def add_joined(self, ref, scored, joined):
        pass

    def warnings(self):
        return []

    def spooled(self):
        return []

    def summary_records(self):
        return []

    def text(self, heading):
        return ""


class Kept(NullSink):
    """A sink that keeps what the engine streams to it, in order."""

    def __init__(self):
        self.records, self.lines = [], b""

    def record(self, record):
        self.records.append(record)

    def session(self, one):
        self.lines += one.lines


def swept(kept, select=lambda refs, warnings: refs, **request):
    hooks = SweepHooks(diagnosed=Join(), select=select, outputs=lambda: contextlib.nullcontext(kept),
                       finish=lambda result, sink: None)
    return run_sweep(SweepRequest(paths=(BASE,), rulesets=tuple(load_many(None)), jobs=1, **request), hooks)


def test_the_result_and_the_streamed_records_are_the_commands_json_lines(capsys):
    kept = Kept()
    result = swept(kept, json_lines=True, rows_written=True)  # as `sweep --json` asks
    assert capsys.readouterr().out == ""  # the engine writes nothing; the face writes what it streams
    main(["sweep", BASE, "--json", "-q", "-j1"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == result.header and result.header["sessions"] == 7
    sessions = [r for r in lines if r["record"] == "session"]
    assert [json.loads(line) for line in kept.lines.splitlines()] == sessions
    assert [r for r in lines[1:] if r["record"] != "session"] == kept.records
    assert [r["slice"] for r in result.slices[0]] == [r["slice"] for r in lines if r["record"] == "slice"]
    assert len(result.unscored) == 2 and not result.internal


def test_no_json_stream_asked_no_json_line_made():
    kept = Kept()
    result = swept(kept)
    assert kept.lines == b"" and result.slices[0][0]["n"] == 5


def test_what_select_leaves_is_all_that_is_scored():
    kept = Kept()
    result = swept(kept, select=lambda refs, warnings: [r for r in refs if r.key.startswith("alpha")])
    assert result.header["sessions"] == 3 and result.slices[0][0]["n"] == 3
    assert swept(Kept(), select=lambda refs, warnings: None) is None
