"""sweep and compare --sufficiency: the explore sufficiency pooled over every answered call
(sufficiency.md, last bullet), checked against each session's own `score --sufficiency --json`
and against the JavaScript oracle's pooled mode (tests/oracle/reference.mjs --pooled)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import subprocess
from pathlib import Path

import pytest

from builders import EXPLORE, answer_to, explored, response, section, use, write_jsonl

from citeledger.cli import main

REPO = Path(__file__).resolve().parent.parent.parent
PASS = "tests/fixtures/pass"
ORACLE = REPO / "tests" / "oracle" / "reference.mjs"
BUCKETS = ("explore_again", "read_returned", "read_missed", "search", "sufficient")
LABELS = ("explore again", "Read a file we returned", "Read a file we did not return", "Grep/Glob",
          "moved on / answered")


@pytest.fixture(autouse=True)
def at_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def run(capsys, *argv) -> str:
    main(list(argv))
    return capsys.readouterr().out


def records(capsys, *argv) -> list[dict]:
    return [json.loads(line) for line in run(capsys, *argv).splitlines()]


def session_sufficiency(capsys, reader: str, files: list[str]) -> dict:
    """One session's sufficiency as `score --sufficiency --json` computes it."""
    args = ["--session", files[0]] if reader == "claude-interactive" else list(files)
    return json.loads(run(capsys, "score", *args, "--sufficiency", "--json"))["sufficiency"]


def total(parts) -> dict:
    parts = list(parts)
    return {
        "counts": {b: sum(p["counts"][b] for p in parts) for b in BUCKETS},
        "answered": sum(p["answered"] for p in parts),
        "errors": sum(p["errors"] for p in parts),
        "concurrent": sum(p["concurrent"] for p in parts),
    }


def numbers(data: dict) -> dict:
    return {k: data[k] for k in ("counts", "answered", "errors", "concurrent")}


def arm_runs(group_dir: Path, arm: str) -> list[list[str]]:
    """Each run of an arm in a harness folder: run-<arm>-<i>.jsonl and its .t<k> segments, in order."""
    runs = []
    for first in sorted(group_dir.glob(f"run-{arm}-*.jsonl")):
        if not re.fullmatch(rf"run-{re.escape(arm)}-\d+\.jsonl", first.name):
            continue
        stem = first.name[: -len(".jsonl")]
        segments = sorted(group_dir.glob(f"{stem}.t*.jsonl"), key=lambda p: int(p.name[len(stem) + 2:-len(".jsonl")]))
        runs.append([str(p) for p in (first, *segments)])
    return runs


def oracle_pooled(runs: list[list[str]]) -> dict:
    argv = []
    for files in runs:
        argv += (["--"] if argv else []) + files
    done = subprocess.run(["node", str(ORACLE), "--pooled", *argv], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_a_sweeps_pooled_sufficiency_is_the_sum_of_each_sessions_score(capsys):
    out = records(capsys, "sweep", PASS, "-q", "-j", "1", "--sufficiency", "--json")
    sessions = [r for r in out if r["record"] == "session"]
    slices = {r["slice"]: r["sufficiency"] for r in out if r["record"] == "slice"}
    by_slice = {"all": [], "single-question": [], "multi-turn": []}
    for r in sessions:
        own = session_sufficiency(capsys, r["reader"], r["inputs"])
        assert r["sufficiency"] == numbers(own), r["session"]
        by_slice["all"].append(own)
        by_slice["single-question" if r["turns"] <= 1 else "multi-turn"].append(own)
    assert sum(s["answered"] for s in by_slice["all"]) > len(sessions)  # some sessions made several calls
    for name, parts in by_slice.items():
        assert numbers(slices[name]) == total(parts), name
        assert slices[name]["sessions"] == len(parts)
    # The text: one row per bucket, a column per slice, each cell the count and its share.
    text = run(capsys, "sweep", PASS, "-q", "-j", "1", "--sufficiency")
    pooled = text[text.index("Explore sufficiency — what the agent did NEXT, pooled"):]
    for bucket, label in zip(BUCKETS, LABELS):
        row = next(line for line in pooled.splitlines() if line.startswith(f"  {label} "))
        cells = re.findall(r"\d+ \(\d+%\)", row)
        for cell, name in zip(cells, by_slice):
            part = total(by_slice[name])
            n = part["counts"][bucket]
            assert cell == f"{n} ({math.floor(100 * n / part['answered'] + 0.5)}%)", (label, name)
        assert len(cells) == 3
    answered = next(line for line in pooled.splitlines() if line.startswith("  answered calls"))
    assert answered.split() == ["answered", "calls", *(str(total(by_slice[s])["answered"]) for s in by_slice)]


def test_compare_arms_pools_every_answered_call_of_each_arms_runs_per_group(capsys):
    out = records(capsys, "compare", PASS, "--arms", "baseline", "new", "-q", "-j", "1", "--sufficiency", "--json")
    groups = {g["group"]: g for g in out if g["record"] == "group"}
    everything = {"base": [], "new": []}
    for name in ("cg22/ab-express", "cg22/ab-flask", "cg23/ab-express"):
        for side, arm in (("base", "baseline"), ("new", "new")):
            runs = arm_runs(REPO / PASS / name, arm)
            own = [session_sufficiency(capsys, "claude-stream", files) for files in runs]
            everything[side] += own
            pooled = groups[name][f"{side}_sufficiency"]
            assert numbers(pooled) == total(own), (name, arm)
            assert pooled["sessions"] == len(runs)
            # The oracle pools the same runs (its transcription of the spec's pooling bullet).
            oracle = oracle_pooled(runs)
            assert [r["count"] for r in oracle["rows"]] == [pooled["counts"][b] for b in BUCKETS]
            assert oracle["answered"] == pooled["answered"]
            assert oracle.get("errors", 0) == pooled["errors"]
    for side in ("base", "new"):  # an arm over every group: compare-arms.mjs's pooled row
        assert numbers(groups["(all)"][f"{side}_sufficiency"]) == total(everything[side])
    assert groups["(all)"]["new_sufficiency"]["counts"] != groups["(all)"]["base_sufficiency"]["counts"]


def test_the_compare_text_prints_the_oracles_shares(capsys):
    text = run(capsys, "compare", PASS, "--arms", "baseline", "new", "-q", "-j", "1", "--sufficiency")
    block = text[text.index("Explore sufficiency — what the agent did NEXT, pooled"):]
    block = block[: block.index("\n\n")]
    rows = block.splitlines()[2:]  # title, header
    at = next(i for i, line in enumerate(rows) if line.startswith("  cg22/ab-express "))
    group = REPO / PASS / "cg22/ab-express"
    shares = [oracle_pooled(arm_runs(group, arm))["rows"] for arm in ("baseline", "new")]
    for k, (bucket, label) in enumerate(zip(BUCKETS, LABELS)):
        cells = re.findall(r"\d+ \(\d+%\)", rows[at + k])
        assert label in rows[at + k]
        assert cells == [f"{s[k]['count']} ({s[k]['share']})" for s in shares]
    assert "errored" not in block  # no run errored: no errored row


def errored_pass(root: Path) -> Path:
    r = response(section("lib/a.js", body="x\n"))
    fine = explored("t1", "fine", r, message="m1")
    write_jsonl(root / "g" / "run-a-1.jsonl", [
        *fine, use("t2", EXPLORE, {"query": "never answered"}, message="m2"),
        use("r1", "Read", {"file_path": "lib/a.js"}, message="m3"),
        {"type": "result", "subtype": "success", "result": "See `lib/a.js`."},
    ])
    write_jsonl(root / "g" / "run-a-2.jsonl", [*fine, {"type": "result", "subtype": "success", "result": "lib/a.js"}])
    write_jsonl(root / "g" / "run-b-1.jsonl", [
        *explored("t1", "fine", r, message="m1"), answer_to("t9", "boom", is_error=True),
        use("r2", "Grep", {"pattern": "x"}, message="m2"),
        {"type": "result", "subtype": "success", "result": "lib/a.js"},
    ])
    return root


def test_an_errored_call_adds_the_errored_row_and_is_not_bucketed(tmp_path, capsys):
    root = errored_pass(tmp_path / "p")
    text = run(capsys, "compare", str(root), "--arms", "a", "b", "-q", "-j", "1", "--sufficiency")
    assert re.search(r"^\s+errored/unanswered calls\s+1\s+0$", text, re.M)
    assert re.search(r"^\s+answered calls\s+2\s+1$", text, re.M)
    out = records(capsys, "compare", str(root), "--arms", "a", "b", "-q", "-j", "1", "--sufficiency", "--json")
    g = next(r for r in out if r["record"] == "group" and r["group"] == "g")
    oracle = oracle_pooled(arm_runs(root / "g", "a"))
    assert oracle["errors"] == g["base_sufficiency"]["errors"] == 1
    assert [r["count"] for r in oracle["rows"]] == [g["base_sufficiency"]["counts"][b] for b in BUCKETS]
    assert g["new_sufficiency"]["counts"]["search"] == 1


def without(records_: list[dict]) -> list[dict]:
    out = []
    for r in records_:
        r = {k: v for k, v in r.items() if not k.endswith("sufficiency")}
        out.append(r)
    return out


@pytest.mark.parametrize("command", [["sweep", PASS], ["compare", PASS, "--arms", "baseline", "new"]])
def test_the_flag_only_adds(command, capsys):
    plain = run(capsys, *command, "-q", "-j", "1")
    added = run(capsys, *command, "-q", "-j", "1", "--sufficiency")
    block = added[added.index("Explore sufficiency — "):]
    block = "\n" + block[: block.index("\n\n") + 1]
    assert added.replace(block, "", 1) == plain
    assert "sufficiency" not in plain.lower()
    assert without(records(capsys, *command, "-q", "-j", "1", "--sufficiency", "--json")) == \
        records(capsys, *command, "-q", "-j", "1", "--json")


def test_the_numbers_do_not_depend_on_the_jobs(capsys):
    one = run(capsys, "sweep", PASS, "-q", "-j", "1", "--sufficiency", "--json")
    two = run(capsys, "sweep", PASS, "-q", "-j", "2", "--sufficiency", "--json")
    assert one == two


def test_csv_and_pages_carry_the_json_numbers(tmp_path, capsys):
    out = records(capsys, "compare", PASS, "--arms", "baseline", "new", "-q", "-j", "1", "--sufficiency", "--json")
    groups = [g for g in out if g["record"] == "group"]
    run(capsys, "compare", PASS, "--arms", "baseline", "new", "-q", "-j", "1", "--sufficiency",
        "--out", str(tmp_path / "c"))
    rows = list(csv.DictReader(open(tmp_path / "c" / "groups.csv", encoding="utf-8")))
    page = (tmp_path / "c" / "report.html").read_text(encoding="utf-8")
    assert [r["group"] for r in rows] == [g["group"] for g in groups]
    for r, g in zip(rows, groups):
        for side in ("base", "new"):
            pooled = g[f"{side}_sufficiency"]
            for b in BUCKETS:
                assert int(r[f"{side}_sufficiency_{b}"]) == pooled["counts"][b]
            assert int(r[f"{side}_sufficiency_answered"]) == pooled["answered"]
            assert int(r[f"{side}_sufficiency_sessions"]) == pooled["sessions"]
    section = page[page.index('<section id="sufficiency">'):]
    section = section[: section.index("</section>")]
    shown = re.findall(r'data-field="base_explore_again" data-value="(\d+)"', section)
    assert [int(v) for v in shown] == [g["base_sufficiency"]["counts"]["explore_again"] for g in groups]
    sweep_csv = run(capsys, "sweep", PASS, "-q", "-j", "1", "--sufficiency", "--csv")
    slices = list(csv.DictReader(io.StringIO(sweep_csv)))
    sweep = {r["slice"]: r["sufficiency"] for r in records(capsys, "sweep", PASS, "-q", "-j", "1", "--sufficiency", "--json")
             if r["record"] == "slice"}
    for r in slices:
        assert [int(r[f"sufficiency_{b}"]) for b in BUCKETS] == [sweep[r["slice"]]["counts"][b] for b in BUCKETS]


def test_a_compare_of_sweep_outputs_needs_them_made_with_the_flag(tmp_path, capsys):
    run(capsys, "sweep", PASS + "/cg22", "-q", "-j", "1", "--out", str(tmp_path / "plain"))
    assert main(["compare", str(tmp_path / "plain"), PASS + "/cg22", "-q", "-j", "1", "--sufficiency"]) == 2
    assert "made without --sufficiency" in capsys.readouterr().err
    run(capsys, "sweep", PASS + "/cg22", "-q", "-j", "1", "--sufficiency", "--out", str(tmp_path / "with"))
    read = records(capsys, "compare", str(tmp_path / "with"), PASS + "/cg22", "-q", "-j", "1", "--sufficiency", "--json")
    for g in (r for r in read if r["record"] == "group"):
        assert g["base_sufficiency"] == g["new_sufficiency"]  # the same sessions, read back or scored now


def test_the_session_page_shows_each_calls_next_act_beside_its_allocation(tmp_path, capsys):
    file = "tests/fixtures/real/stream/express-sendfile-2calls.jsonl"
    judged = json.loads(run(capsys, "score", file, "--sufficiency", "--json"))["sufficiency"]
    run(capsys, "score", file, "--html", str(tmp_path / "s.html"))
    page = (tmp_path / "s.html").read_text(encoding="utf-8")
    calls = re.findall(r'<div class="call" data-call="(\d+)"><h3 id="call-\d+">(.*?)</h3>', page)
    assert len(calls) == len(judged["calls"]) == 2
    for (_, heading), call in zip(calls, judged["calls"]):
        assert f'data-field="next" data-value="&quot;{call["bucket"]}&quot;"' in heading
        assert f">{call['next']}</span>" in heading
    assert [c["bucket"] for c in judged["calls"]] == ["explore_again", "sufficient"]
