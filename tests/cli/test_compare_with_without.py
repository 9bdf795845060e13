"""compare --arms headless-with headless-without --ruleset retrieval on tests/fixtures/with-without.

The numbers are the hand-derived ones of tests/fixtures/with-without/README.md
(sizes counted without citeledger): each run's used and envelope chars, the
sections of one call per source, and the arms' medians and pooled figures.
"""

import json
import statistics
from pathlib import Path

import pytest

from citeledger.cli import main

PASS = Path(__file__).parent.parent / "fixtures" / "with-without"
# (used, envelope) per run, run1..run3, from the README's table.
WITH = [(9_710, 12_750), (9_154, 15_117), (4_006, 11_495)]
WITHOUT = [(4_467, 4_467), (3_589, 3_812), (1_925, 2_562)]


def run_cli(capsys, *argv):
    code = main([*argv, "-q", "-j1"] if argv[0] == "compare" else list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def efficiencies(pairs):
    return [used / envelope for used, envelope in pairs]


def pooled(pairs):
    return sum(u for u, _ in pairs) / sum(e for _, e in pairs)


@pytest.mark.parametrize("arms", [("headless-with", "headless-without"), ("with", "without")])
def test_the_arms_on_the_same_metric(capsys, arms):
    code, out, err = run_cli(capsys, "compare", str(PASS), "--arms", *arms, "--ruleset", "retrieval", "--json")
    assert code == 0, err
    recs = records(out)
    header = recs[0]
    assert (header["baseline"], header["new"]) == arms
    assert header["ruleset"] == "retrieval"
    groups = {r["group"]: r for r in recs if r["record"] == "group"}
    assert set(groups) == {"express", "(all)"}
    g = groups["express"]
    assert g["base_runs"] == pytest.approx(efficiencies(WITH))
    assert g["new_runs"] == pytest.approx(efficiencies(WITHOUT))
    assert g["base_median"] == pytest.approx(statistics.median(efficiencies(WITH)))
    assert g["new_median"] == pytest.approx(statistics.median(efficiencies(WITHOUT)))
    assert g["difference"] == pytest.approx(3_589 / 3_812 - 9_154 / 15_117)  # the medians are run2's
    assert g["base_pooled"] == pytest.approx(22_870 / 39_362) == pytest.approx(pooled(WITH))
    assert g["new_pooled"] == pytest.approx(9_981 / 10_841) == pytest.approx(pooled(WITHOUT))
    assert g["base_sessions"] == [f"express/run{i}/run-headless-with.jsonl" for i in (1, 2, 3)]
    assert g["new_sessions"] == [f"express/run{i}/run-headless-without.jsonl" for i in (1, 2, 3)]
    assert not [r for r in recs if r["record"] in ("unscored", "other-arm", "warning")]


def test_the_default_ruleset_cannot_score_the_without_arm(capsys):
    """Under `default` only explore responses count: the without arm has none, so it is not compared."""
    code, out, err = run_cli(capsys, "compare", str(PASS), "--arms", "headless-with", "headless-without", "--json")
    assert code == 1
    unscored = [r for r in records(out) if r["record"] == "unscored"]
    assert sorted(r["session"] for r in unscored) == [f"express/run{i}/run-headless-without.jsonl" for i in (1, 2, 3)]


@pytest.mark.parametrize("run, arm, call, expected", [
    # run2 with: the explore call's sections, then the Read of lib/express.js (2,910 + 3,221 = 6,131 in all)
    (2, "with", 1, {"lib/application.js": 3_023, "lib/express.js": 2_910, "lib/response.js": 3_997,
                    "lib/utils.js": 1_966}),
    (2, "with", 2, {"lib/express.js": 3_221}),
    # run1 without: a Grep line, a Read of response.js 111-230, a sed -n read of utils.js
    (1, "without", 1, {"lib/response.js": 94}),
    (1, "without", 2, {"lib/response.js": 3_956}),
    (1, "without", 3, {"lib/utils.js": 417}),
])
def test_sections_per_source(capsys, run, arm, call, expected):
    path = PASS / "express" / f"run{run}" / f"run-headless-{arm}.jsonl"
    code, out, err = run_cli(capsys, "score", str(path), "--ruleset", "retrieval", "--json")
    assert code == 0, err
    session = json.loads(out)
    got = {f["path"]: f["chars"] for f in session["calls"][call - 1]["files"]}
    assert got == expected


def test_a_headless_name_no_run_carries_names_the_label_it_looked_for(capsys):
    code, out, err = run_cli(capsys, "compare", str(PASS), "--arms", "headless-with", "headless-nwe")
    assert code == 2 and out == ""
    assert err == (f"citeledger: error: --arms headless-nwe: no run-nwe-N.jsonl or run-headless-nwe.jsonl under "
                   f"{PASS} (arms found: with, without)\n")


def test_two_names_of_one_arm_are_refused(capsys):
    code, out, err = run_cli(capsys, "compare", str(PASS), "--arms", "with", "headless-with")
    assert code == 2 and "must differ" in err
