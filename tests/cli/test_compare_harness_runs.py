"""`citeledger compare PASS --arms L1 L2 ... --harness --runs`: a whole pass in one process.

Before the arm table, each arm's runs (the arms in the order given, the runs in
run order, a run's `.tN` segments read with it) as a `-- <run file stem> --`
line and the run's `parse-run.mjs --brief` block. Each block must equal what
`score --harness --brief` prints for the same files (itself held to the
reference by the oracle tests) and the table what `compare --harness` prints;
`--json` carries each run's record beside the same table. Where
CITELEDGER_REFERENCE names a folder holding codegraph's own scripts, the whole
output is compared with the node workflow the harness runs (one
`node parse-run.mjs --brief` per run, then `node compare-arms.mjs`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from citeledger.cli import main

PASS = Path(__file__).parents[1] / "fixtures" / "pass"
SHIPPED = (
    (PASS / "cg22" / "ab-flask", ("baseline", "new")),
    (PASS / "cg22" / "headless-express", ("headless-with", "headless-without")),
    (PASS / "cg23" / "ab-express", ("new", "baseline")),
)


def run(capsys, *argv) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def run_files(folder: Path, label: str) -> list[list[str]]:
    """Each run of `label` in `folder` as the harness lays it out: its files, segments after."""
    names = sorted(os.listdir(folder))
    if f"run-{label}.jsonl" in names:
        stems = [f"run-{label}"]
    else:
        numbers = sorted(int(m.group(1)) for n in names if (m := re.fullmatch(rf"run-{label}-(\d+)\.jsonl", n)))
        stems = [f"run-{label}-{i}" for i in numbers]
    runs = []
    for stem in stems:
        segments = sorted((int(m.group(1)), n) for n in names if (m := re.fullmatch(rf"{stem}\.t(\d+)\.jsonl", n)))
        runs.append([str(folder / f"{stem}.jsonl"), *(str(folder / n) for _, n in segments)])
    return runs


def expected(capsys, folder: Path, arms) -> str:
    blocks = []
    for label in arms:
        for files in run_files(folder, label):
            stem = Path(files[0]).name[: -len(".jsonl")]
            blocks.append(f"-- {stem} --\n" + run(capsys, "score", "--harness", "--brief", *files))
    return "".join(blocks) + run(capsys, "compare", str(folder), "--arms", *arms, "--harness")


@pytest.fixture(scope="module")
def three_arms(tmp_path_factory) -> Path:
    """A pass of three arms from the shipped A/B pass: `old` is a copy of the baseline's runs under
    another label, so the arms' order and each run's stem are checked on a third label."""
    folder = tmp_path_factory.mktemp("three-arms")
    source = PASS / "cg22" / "ab-flask"
    for name in os.listdir(source):
        if re.fullmatch(r"run-(baseline|new)-\d+(\.t\d+)?\.jsonl", name):
            shutil.copy(source / name, folder / name)
            if name.startswith("run-baseline-"):
                shutil.copy(source / name, folder / name.replace("run-baseline-", "run-old-"))
    return folder


@pytest.mark.parametrize("folder,arms", SHIPPED, ids=lambda v: v.name if isinstance(v, Path) else "-".join(v))
def test_a_whole_pass_prints_each_runs_brief_report_then_the_arm_table(capsys, folder, arms):
    assert run(capsys, "compare", str(folder), "--arms", *arms, "--harness", "--runs") == expected(capsys, folder, arms)


def test_three_arms_print_in_the_order_given_each_in_run_order(capsys, three_arms):
    arms = ("new", "old", "baseline")
    out = run(capsys, "compare", str(three_arms), "--arms", *arms, "--harness", "--runs")
    assert out == expected(capsys, three_arms, arms)
    stems = re.findall(r"^-- (\S+) --$", out, re.M)
    per_arm = {label: len(run_files(three_arms, label)) for label in arms}
    assert stems == [f"run-{label}-{i}" for label in arms for i in range(1, per_arm[label] + 1)]


def test_json_carries_each_runs_record_beside_the_table(capsys, three_arms):
    arms = ("baseline", "new", "old")
    record = json.loads(run(capsys, "compare", str(three_arms), "--arms", *arms, "--harness", "--runs", "--json"))
    text = run(capsys, "compare", str(three_arms), "--arms", *arms, "--harness", "--runs")
    assert record["table"] == run(capsys, "compare", str(three_arms), "--arms", *arms, "--harness")
    assert "".join(f"-- {r['run']} --\n{r['report']}" for r in record["runs"]) + record["table"] == text
    assert [r["arm"] for r in record["runs"]] == [a for a in arms for _ in run_files(three_arms, a)]
    assert all(r["figures"]["name"] == r["run"][len("run-"):] for r in record["runs"])


def test_runs_without_harness_is_refused_in_one_line(capsys):
    code = main(["compare", str(PASS / "cg22" / "ab-flask"), "--arms", "baseline", "new", "--runs"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--runs: only with --harness" in err


REFERENCE = os.environ.get("CITELEDGER_REFERENCE")


@pytest.mark.reference
@pytest.mark.skipif(not REFERENCE, reason="CITELEDGER_REFERENCE names no folder of codegraph's scripts")
@pytest.mark.parametrize("folder,arms", SHIPPED, ids=lambda v: v.name if isinstance(v, Path) else "-".join(v))
def test_a_whole_pass_equals_the_node_workflow(capsys, folder, arms):
    node = []
    for label in arms:
        for files in run_files(folder, label):
            stem = Path(files[0]).name[: -len(".jsonl")]
            done = subprocess.run(["node", os.path.join(REFERENCE, "parse-run.mjs"), "--brief", *files],
                                  capture_output=True, text=True, check=True)
            node.append(f"-- {stem} --\n{done.stdout}")
    done = subprocess.run(["node", os.path.join(REFERENCE, "compare-arms.mjs"), str(folder), *arms],
                          capture_output=True, text=True, check=True)
    assert run(capsys, "compare", str(folder), "--arms", *arms, "--harness", "--runs") == "".join(node) + done.stdout
