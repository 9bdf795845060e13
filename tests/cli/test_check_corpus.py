"""`citeledger check SPEC --corpus PATH ...`: the corpus keys, judged on `sweep`'s own numbers.

Each number a check prints is read from `citeledger sweep --json` over the same
paths (its `slice` records), never written here; a floor above it fails
(exit 4), one below passes with the sweep's own status (1: tests/fixtures/real
has a truncated run and sessions not scored). The PASS/FAIL word of every line
agrees with the value and floor printed beside it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from citeledger.cli import main

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests" / "fixtures" / "real"
FLASK = REPO / "tests" / "fixtures" / "pass" / "cg22" / "ab-flask"
FAILED = 4


def cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def spec(tmp_path, corpus: dict, name="gate.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"corpus": corpus}))
    return path


def sweep(capsys, *paths) -> tuple[int, dict]:
    """The sweep's exit status and its slice rows by slice (the first ruleset's)."""
    status, out, _ = cli(capsys, "sweep", *paths, "--json", "-q")
    records = [json.loads(line) for line in out.splitlines()]
    return status, {r["slice"]: r for r in records if r["record"] == "slice"}


def verdict_agrees(detail: str, passed: bool) -> bool:
    """The value and floor of a detail line, compared as printed, say what the verdict says."""
    value, op, floor = re.search(r"(\d+(?:\.\d+)?)% (>=|<) (\d+(?:\.\d+)?)%", detail).groups()
    return (op == ">=") == passed == (float(value) >= float(floor))


def test_a_pooled_floor_above_the_sweep_fails_and_below_passes(tmp_path, capsys):
    swept, rows = sweep(capsys, REAL)
    pooled = rows["all"]["pooled"]
    high = cli(capsys, "check", spec(tmp_path, {"pooledEfficiencyAtLeast": 0.99}), "--corpus", REAL, "-q")
    low = cli(capsys, "check", spec(tmp_path, {"pooledEfficiencyAtLeast": 0.01}), "--corpus", REAL, "-q")
    assert pooled < 0.99 and high[0] == FAILED and "FAIL  pooled efficiency >= 99.0% (every session)" in high[1]
    assert swept == 1 and low[0] == swept  # the sweep warns (a truncated run): 1, as `sweep` itself exits
    assert f"pooled {pooled * 100:.1f}% >= 1.0%" in low[1]
    assert f"{rows['all']['used']:,} of {rows['all']['envelope']:,} chars" in low[1]
    assert "check: PASS — 1 of 1" in low[1] and "check: FAIL — 0 of 1" in high[1]


def test_median_and_scored_share_are_the_sweeps(tmp_path, capsys):
    _, rows = sweep(capsys, REAL)
    row = rows["all"]
    share = row["n"] / (row["n"] + row["not_scored"])
    gate = spec(tmp_path, {"medianEfficiencyAtLeast": 0.5, "scoredShareAtLeast": 0.95})
    status, out, _ = cli(capsys, "check", gate, "--corpus", REAL, "-q", "--json")
    data = json.loads(out)
    median, scored = data["corpus"]
    assert median["pass"] == (row["median"] >= 0.5) and f"median {row['median'] * 100:.1f}%" in median["detail"]
    assert scored["pass"] == (share >= 0.95) and f"{row['n']} of {row['n'] + row['not_scored']} sessions scored" \
        in scored["detail"]
    assert status == (1 if data["passed"] else FAILED) and data["corpus_paths"] == [str(REAL)]


def test_per_slice_and_per_arm_floors(tmp_path, capsys):
    _, rows = sweep(capsys, REAL)
    multi = rows["multi-turn"]["pooled"]
    gate = spec(tmp_path, {"slices": {"multi-turn": {"pooledEfficiencyAtLeast": 0.5}},
                           "arms": {"new": {"medianEfficiencyAtLeast": 0.6}}})
    status, out, _ = cli(capsys, "check", gate, "--corpus", REAL, "-q")
    assert "PASS  pooled efficiency >= 50.0% (slice multi-turn)" in out and f"pooled {multi * 100:.1f}%" in out
    assert "FAIL  median efficiency >= 60.0% (arm new)" in out and "no session of arm new" in out
    assert "FAIL  corpus arms.new.medianEfficiencyAtLeast" in out and status == FAILED


def test_an_arm_is_judged_on_its_own_sessions(tmp_path, capsys):
    """ab-flask's arms as `compare --arms` gives their medians."""
    status, out, _ = cli(capsys, "compare", FLASK, "--arms", "baseline", "new", "--json")
    group = next(json.loads(line) for line in out.splitlines() if json.loads(line).get("record") == "group")
    gate = spec(tmp_path, {"arms": {"baseline": {"medianEfficiencyAtLeast": 0.6},
                                    "new": {"medianEfficiencyAtLeast": 0.6}}})
    status, out, _ = cli(capsys, "check", gate, "--corpus", FLASK, "-q")
    base, new = re.findall(r"(PASS|FAIL)  median efficiency >= 60.0% \(arm (\w+)\)\n\s+(.*)", out)
    assert base[1] == "baseline" and f"median {group['base_median'] * 100:.1f}%" in base[2]
    assert new[1] == "new" and f"median {group['new_median'] * 100:.1f}%" in new[2]
    assert (base[0] == "PASS") == (group["base_median"] >= 0.6) and (new[0] == "PASS") == (group["new_median"] >= 0.6)
    assert status == (FAILED if min(group["base_median"], group["new_median"]) < 0.6 else 0)


@pytest.mark.parametrize("offset", [0.0, 1e-4, -1e-4, 4e-4, -4e-4])
def test_the_verdict_agrees_with_the_numbers_beside_it(tmp_path, capsys, offset):
    """A floor a hair from the value: both printed with the digits that tell them apart."""
    _, rows = sweep(capsys, REAL)
    floor = rows["all"]["pooled"] + offset
    status, out, _ = cli(capsys, "check", spec(tmp_path, {"pooledEfficiencyAtLeast": floor}), "--corpus", REAL,
                         "-q", "--json")
    check = json.loads(out)["corpus"][0]
    assert check["pass"] == (offset <= 0) and verdict_agrees(check["detail"], check["pass"])


@pytest.mark.parametrize("corpus, argv, message", [
    ({"pooledEfficiencyAtleast": 0.5}, ["--corpus", REAL], "corpus.pooledEfficiencyAtleast: unknown corpus key"),
    ({"pooledEfficiencyAtLeast": 1.5}, ["--corpus", REAL], "corpus.pooledEfficiencyAtLeast: 1.5 is out of range"),
    ({"slices": {"long": {"scoredShareAtLeast": 0.5}}}, ["--corpus", REAL], "corpus.slices.long: unknown slice"),
    ({"scoredShareAtLeast": 0.5}, [], "corpus.scoredShareAtLeast: needs the sessions to sweep: --corpus PATH"),
])
def test_a_corpus_spec_error_is_exit_2_naming_the_key(tmp_path, capsys, corpus, argv, message):
    status, out, err = cli(capsys, "check", spec(tmp_path, corpus), *argv)
    assert (status, out) == (2, "") and message in err and err.count("\n") == 1


def test_corpus_without_corpus_keys_is_refused(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"session": {"maxDrop": 0.05}}))
    status, _, err = cli(capsys, "check", path, "--corpus", REAL, "--arms", "baseline", "new", FLASK)
    assert status == 2 and "--corpus:" in err and "no corpus: keys" in err
