"""The engine's compare (engine/compare.py): the group rows `compare --arms` prints, computed
without the command line and without writing a byte."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from citeledger.cli import main
from citeledger.core.errors import UserError
from citeledger.engine.compare import CompareRequest, arm_groups
from citeledger.rules.compiled import load_many

PASSES = Path(__file__).parent.parent / "fixtures" / "pass"
EXPRESS, FLASK = str(PASSES / "cg22" / "ab-express"), str(PASSES / "cg22" / "ab-flask")


def request(**changes) -> CompareRequest:
    fields = dict(passes=(EXPRESS, FLASK), arms=("baseline", "new"), ruleset=load_many(["default"])[0],
                  seed=7, resamples=500, confidence=0.9, jobs=1)
    return CompareRequest(**{**fields, **changes})


def printed_groups(capsys, *args) -> list[dict]:
    main(["compare", *args])
    lines = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    return [r for r in lines if r.get("record") == "group"]


def test_arm_groups_are_the_group_records_compare_prints(capsys):
    warnings: list = []
    groups = arm_groups(request(), warnings)
    assert capsys.readouterr() == ("", "")  # the engine writes nothing
    printed = printed_groups(capsys, EXPRESS, FLASK, "--arms", "baseline", "new", "--json", "-q", "-j", "1",
                             "--seed", "7", "--resamples", "500", "--confidence", "0.9")
    assert len(groups) >= 3  # both passes' groups and (all)
    assert orjson.loads(orjson.dumps(groups)) == printed


def test_the_seed_decides_the_interval():
    one, other = arm_groups(request(), []), arm_groups(request(seed=8), [])
    assert [g["base_median"] for g in one] == [g["base_median"] for g in other]
    assert [(g["ci_low"], g["ci_high"]) for g in one] != [(g["ci_low"], g["ci_high"]) for g in other]


def test_a_mistyped_arm_is_the_commands_one_line_error():
    with pytest.raises(UserError, match=r"--arms nwe: no run-nwe-N.jsonl"):
        arm_groups(request(arms=("baseline", "nwe")), [])
