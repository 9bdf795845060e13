"""compare --arms on the committed fixture pass (tests/fixtures/pass, README.md there).

Each run's efficiency is worked out by the JavaScript oracle (tests/oracle/
reference.mjs, a transcription of the spec, not of citeledger), reading the
run's segment files listed here from the pass README's layout; the medians
and pooled figures are then taken here with Python's statistics module.
Facts taken from the README's hand-derived tables: run-baseline-12 of
cg22/ab-express was killed (no answer); run-new-2 and run-baseline-2 there
are three segments; run-new-12 cites all three files it was returned; the
without arm of headless-express has no explore call.
"""

import json
import statistics
from pathlib import Path

import pytest

from citeledger.cli import main
from test_differential import oracle_batch

PASS = Path(__file__).parent.parent / "fixtures" / "pass"
GROUPS = {"cg22/ab-express": 12, "cg22/ab-flask": 6, "cg23/ab-express": 4}  # runs per arm (README)
KILLED = ("cg22/ab-express", "baseline", 12)


def segments(group: str, arm: str, i: int) -> list[str]:
    first = PASS / group / f"run-{arm}-{i}.jsonl"
    rest = [PASS / group / f"run-{arm}-{i}.t{t}.jsonl" for t in range(2, 10)]
    return [str(first)] + [str(p) for p in rest if p.exists()]


@pytest.fixture(scope="module")
def oracle():
    """(group, arm) -> [(run, efficiency, envelope, used)] of the scored runs, in run order."""
    keys = [(g, arm, i) for g, n in GROUPS.items() for arm in ("baseline", "new") for i in range(1, n + 1)]
    results = oracle_batch([segments(*k) for k in keys])
    out: dict = {}
    for (g, arm, i), js in zip(keys, results):
        ref = js["json"]
        if (g, arm, i) == KILLED:
            assert not ref["has_answer"]
            continue
        assert ref["has_answer"] and ref["calls"]
        out.setdefault((g, arm), []).append((i, ref["efficiency"], ref["envelope"], ref["used"]))
    return out


def compare(capsys, *argv):
    code = main(["compare", *argv, "-q", "-j1"])
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_arms_on_the_pass_matches_the_oracle_run_by_run(capsys, oracle):
    code, out, err = compare(capsys, str(PASS), "--arms", "baseline", "new", "--json")
    records = [json.loads(line) for line in out.splitlines()]
    groups = {r["group"]: r for r in records if r["record"] == "group"}
    assert list(groups) == [*GROUPS, "(all)"]
    for name in GROUPS:
        g = groups[name]
        for side, arm in (("base", "baseline"), ("new", "new")):
            runs = oracle[(name, arm)]
            effs = [e for _, e, _, _ in runs]
            assert g[f"{side}_runs"] == pytest.approx(effs), (name, arm)
            assert g[f"{side}_sessions"] == [f"{name}/run-{arm}-{i}.jsonl" for i, _, _, _ in runs]
            assert g[f"{side}_median"] == pytest.approx(statistics.median(effs))
            assert g[f"{side}_pooled"] == pytest.approx(sum(u for *_, u in runs) / sum(e for *_, e, _ in runs))
        assert g["difference"] == pytest.approx(statistics.median(
            [e for _, e, _, _ in oracle[(name, "new")]]) - statistics.median([e for _, e, _, _ in oracle[(name, "baseline")]]))
    express = groups["cg22/ab-express"]
    assert express["new_runs"][11] == 1.0  # run-new-12: every returned file cited
    assert express["base_n"] == 11 and express["base_not_scored"] == 1  # the killed run
    # only the killed run's own partial line is warned about: sidecars, configs, hooks, .err
    # files and the tree copies' data.jsonl are not transcripts
    killed = PASS / "cg22/ab-express/run-baseline-12.jsonl"
    assert err == f"citeledger: warning: {killed}:4: not JSON (truncated), skipped\n"
    assert [r["file"] for r in records if r["record"] == "warning"] == [str(killed)]
    assert [(r["session"], r["status"]) for r in records if r["record"] == "unscored"] == [
        ("cg22/ab-express/run-baseline-12.jsonl", "no-answer")]
    assert sorted(r["arm"] or "" for r in records if r["record"] == "other-arm") == ["", "with", "without"]
    assert code == 1  # the killed run is not scored


def test_the_harness_lines_on_the_pass(capsys, oracle):
    _, out, _ = compare(capsys, str(PASS / "cg23"), "--arms", "baseline", "new")
    for arm in ("baseline", "new"):
        runs = oracle[("cg23/ab-express", arm)]
        effs = [e for _, e, _, _ in runs]
        pooled = sum(u for *_, u in runs) / sum(e for *_, e, _ in runs)
        pct = lambda x: f"{x * 100:.1f}%"  # noqa: E731  (the values here have no .x5 tie)
        line = (f"    {arm:<8}  pooled efficiency  {pct(pooled):>6}   per-run efficiency  "
                f"{pct(statistics.median(effs))} [{pct(min(effs))}–{pct(max(effs))}]\n")
        assert line in out


def test_the_headless_pair_and_its_no_codegraph_arm(capsys):
    code, out, _ = compare(capsys, str(PASS / "cg22" / "headless-express"), "--arms", "without", "with", "--json")
    records = [json.loads(line) for line in out.splitlines()]
    (group,) = [r for r in records if r["record"] == "group" and r["group"] != "(all)"]
    assert group["group"] == "headless-express"
    assert (group["base_n"], group["new_n"], group["base_not_scored"]) == (0, 1, 1)
    assert [(r["session"], r["status"]) for r in records if r["record"] == "unscored"] == [
        ("run-headless-without.jsonl", "no-explore")]
    assert code == 1


def test_a_clean_pass_exits_0(capsys):
    # Without the killed run the pass is clean: everything else is scored, or skipped as no transcript.
    code, out, err = compare(capsys, str(PASS), "--arms", "baseline", "new", "--exclude", "run-baseline-12.*")
    assert (code, err) == (0, "")
    assert "not compared" not in out.replace("sessions of other arms, not compared", "")


def test_a_sweep_output_stands_in_for_the_pass(capsys, tmp_path):
    assert main(["sweep", str(PASS), "-q", "-j1", "--out", str(tmp_path / "swept")]) == 1  # the killed run
    capsys.readouterr()
    _, direct, _ = compare(capsys, str(PASS), "--arms", "baseline", "new", "--json")
    _, swept, _ = compare(capsys, str(tmp_path / "swept"), "--arms", "baseline", "new", "--json")

    def groups(out):
        return [r for r in map(json.loads, out.splitlines()) if r["record"] == "group"]

    assert groups(swept) == groups(direct)
