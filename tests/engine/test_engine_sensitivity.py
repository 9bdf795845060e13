"""The engine's sensitivity (engine/sensitivity.py): the rows `sensitivity --json` prints, computed
without the command line and without writing a byte."""

from __future__ import annotations

from pathlib import Path

import orjson

from citeledger.cli import main
from citeledger.corpus import discover
from citeledger.engine.sensitivity import SensitivityRequest, sensitivity
from citeledger.rules.loader import load_ruleset

CORPUS = str(Path(__file__).parent.parent / "fixtures" / "corpus")


def test_the_rows_are_the_ones_the_command_prints(capsys):
    refs, warnings = discover([CORPUS], [])
    rulesets = tuple(load_ruleset(name) for name in ("default", "retrieval", "written"))
    result = sensitivity(SensitivityRequest(paths=(CORPUS,), rulesets=rulesets, jobs=1), refs, warnings)
    assert capsys.readouterr() == ("", "")  # the engine writes nothing
    main(["sensitivity", CORPUS, "--rulesets", "retrieval", "written", "-j", "1", "-q", "--json"])
    printed = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert printed[0] == {**result.header, "plot": []}
    assert [r for r in printed if r["record"] == "row"] == [{"record": "row", **r} for r in
                                                          orjson.loads(orjson.dumps(list(result.rows)))]
    assert result.header["sessions"] == len(refs) > 0 and result.internal == 0
    assert {r["ruleset"] for r in result.rows} == {"default", "retrieval", "written"}
