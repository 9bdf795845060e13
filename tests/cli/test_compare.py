"""compare on the hand-built corpus: base/ vs new/ (tests/fixtures/corpus/make.py).

Scored runs by group (efficiency, in the pass's order):
  alpha  base 0.6 0.3 1.0      new 0.8 0.7 0.9
  beta   base 0.9 0.25         new 0.9 0.6      (base beta/r2 has no explore)
  gamma  base: one run without an answer; new: none
  delta  base: none;           new 1.0
Bootstrap intervals are checked against the exact resampling distribution:
for three runs x1 < x2 < x3 the median of a resample is x1 with chance 7/27,
so the smallest possible difference (new x1 - base x3) has chance 49/729 =
6.7% > 2.5%: the 95% interval's low end is exactly that value, and likewise
the high end (new x3 - base x1). For two runs, the extreme medians have
chance 1/4 each, the extreme differences 1/16 = 6.25% > 2.5%.
"""

import csv
import json
from pathlib import Path

import pytest

from citeledger.cli import main

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"
BASE, NEW = str(CORPUS / "base"), str(CORPUS / "new")


def compare(capsys, *argv):
    code = main(["compare", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def groups_of(out):
    return {r["group"]: r for r in map(json.loads, out.splitlines()) if r["record"] == "group"}


def test_groups_runs_medians_and_difference(capsys):
    code, out, _ = compare(capsys, BASE, NEW, "--json", "-q")
    assert code == 1  # two base sessions not compared
    g = groups_of(out)
    assert list(g) == ["alpha", "beta", "delta", "gamma", "(all)"]
    alpha = g["alpha"]
    assert alpha["base_runs"] == [0.6, 0.3, 1.0] and alpha["new_runs"] == [0.8, 0.7, 0.9]
    assert (alpha["base_median"], alpha["new_median"]) == (0.6, 0.8)
    assert alpha["difference"] == pytest.approx(0.2)
    assert alpha["ci_low"] == pytest.approx(0.7 - 1.0) and alpha["ci_high"] == pytest.approx(0.9 - 0.3)
    assert (alpha["seed"], alpha["resamples"], alpha["confidence"]) == (0, 10000, 0.95)
    beta = g["beta"]
    assert beta["base_runs"] == [0.9, 0.25] and beta["base_not_scored"] == 1
    assert beta["base_median"] == pytest.approx(0.575) and beta["new_median"] == pytest.approx(0.75)
    assert beta["ci_low"] == pytest.approx(0.6 - 0.9) and beta["ci_high"] == pytest.approx(0.9 - 0.25)
    assert g["delta"]["base_n"] == 0 and g["delta"]["difference"] is None and g["delta"]["ci_low"] is None
    assert g["gamma"]["base_not_scored"] == 1 and g["gamma"]["new_n"] == 0
    everything = g["(all)"]
    # (all) pools the groups scored on both sides: alpha and beta (delta is new-only)
    assert (everything["base_n"], everything["new_n"]) == (5, 5)
    assert everything["base_median"] == pytest.approx(0.6)  # 0.25 0.3 0.6 0.9 1.0
    assert everything["new_median"] == pytest.approx(0.8)  # 0.6 0.7 0.8 0.9 0.9
    assert everything["difference"] == pytest.approx(0.2)


def test_files_whose_share_moved(capsys):
    _, out, _ = compare(capsys, BASE, NEW, "--json", "-q", "--top", "1")
    files = [r for r in map(json.loads, out.splitlines()) if r["record"] == "file"]
    # alpha a.py: base (600+300+500)/3000, new (800+700+900)/3000; tie with b.py broken by path
    # beta  a.py: base (200+250)/3000 of the scored runs, new (100+400)/2000
    assert [(f["group"], f["path"]) for f in files] == [("alpha", "src/a.py"), ("beta", "src/a.py")]
    assert files[0]["delta"] == pytest.approx(2400 / 3000 - 1400 / 3000)
    assert files[1]["base_share"] == pytest.approx(0.15) and files[1]["new_share"] == pytest.approx(0.25)


def test_unscored_sessions_are_listed(capsys):
    _, out, _ = compare(capsys, BASE, NEW, "-q")
    assert "base  no-explore  beta/r2.jsonl" in out
    assert "base  no-answer   gamma/r1.jsonl" in out
    assert "seed 0" in out


def test_sweep_output_reads_back_the_same(capsys, tmp_path):
    assert main(["sweep", NEW, "-q", "--out", str(tmp_path / "new")]) == 0
    capsys.readouterr()
    assert main(["sweep", BASE, "-q", "--json"]) == 1
    base_json = tmp_path / "base.jsonl"
    base_json.write_text(capsys.readouterr().out)
    _, direct, _ = compare(capsys, BASE, NEW, "--json", "-q")
    _, swept, _ = compare(capsys, str(base_json), str(tmp_path / "new"), "--json", "-q")
    assert groups_of(direct) == groups_of(swept)


def test_out_dir_plot_and_csv(capsys, tmp_path):
    out_dir = tmp_path / "cmp"
    code, out, _ = compare(capsys, BASE, NEW, "-q", "--csv", "--out", str(out_dir), "--seed", "5")
    rows = list(csv.DictReader(out.splitlines()))
    assert [r["group"] for r in rows] == ["alpha", "beta", "delta", "gamma", "(all)"]
    assert json.loads(rows[0]["base_runs"]) == [0.6, 0.3, 1.0] and rows[0]["seed"] == "5"  # a JSON array
    assert (out_dir / "compare.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (out_dir / "compare.svg").read_bytes()
    assert {p.name for p in out_dir.iterdir()} >= {"compare.jsonl", "groups.csv", "files.csv", "summary.txt"}


def test_key_by_session_pairs_runs(capsys):
    _, out, _ = compare(capsys, BASE, NEW, "--json", "-q", "--key", "session")
    g = groups_of(out)
    r1 = g["alpha/r1.jsonl"]
    assert (r1["base_runs"], r1["new_runs"]) == ([0.6], [0.8])
    assert r1["ci_low"] == pytest.approx(0.2) and r1["ci_high"] == pytest.approx(0.2)


def test_key_pattern_and_sessions_it_does_not_match(capsys):
    _, out, _ = compare(capsys, BASE, NEW, "--json", "-q", "--key", r"^(alpha|beta)/")
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["group"] for r in records if r["record"] == "group"] == ["alpha", "beta", "(all)"]
    ungrouped = [r["session"] for r in records if r["record"] == "unscored" and r["status"] == "ungrouped"]
    assert ungrouped == ["gamma/r1.jsonl", "delta/r1.jsonl"]


def test_same_result_whatever_the_jobs(capsys):
    _, one, _ = compare(capsys, BASE, NEW, "--json", "-q", "-j1")
    _, two, _ = compare(capsys, BASE, NEW, "--json", "-q", "-j2")
    assert one == two


def test_missing_pass_is_an_input_error(capsys, tmp_path):
    code, _, err = compare(capsys, BASE, str(tmp_path / "missing"))
    assert code == 2 and "missing" in err


def test_each_row_says_how_many_groups_are_paired_and_dropped(capsys):
    """alpha and beta are scored on both sides; delta by new alone (dropped from (all)); gamma by
    neither. The text says so in one line, and warns that the baseline scores fewer groups."""
    _, out, _ = compare(capsys, BASE, NEW, "--json", "-q")
    g = groups_of(out)
    assert [(g[n]["paired"], g[n]["dropped"]) for n in ("alpha", "beta", "delta", "gamma", "(all)")] == [
        (1, 0), (1, 0), (0, 1), (0, 0), (2, 1)]
    _, out, _ = compare(capsys, BASE, NEW, "-q")
    assert "  paired: (all) is over the 2 group(s) both sides score; 1 dropped\n" in out
    assert [line for line in out.splitlines() if "warning" in line] == [
        "  warning: baseline scores fewer groups (2 against 3): (all) leaves out 1 (delta)"]


def test_an_interactive_session_is_no_failure_and_has_no_duration(capsys, tmp_path):
    """An interactive log has no result event: compare's own view counts it neither as a
    non-success run nor as one that took 0 s (n/a); the arm table (--harness) keeps the reference's
    count, which the arm-table parity tests hold."""
    import shutil

    real = CORPUS.parent / "real" / "interactive"
    for side in ("base", "new"):
        shutil.copytree(real, tmp_path / side)
    _, out, _ = compare(capsys, str(tmp_path / "base"), str(tmp_path / "new"), "--json", "-q")
    group = groups_of(out)["-tmp-proj-express"]
    for side in ("base", "new"):
        figures = group[f"{side}_behaviour"]
        assert (figures["measured"], figures["non_success"], figures["no_result"]) == (1, 0, 1)
        assert figures["duration_s"] is None and figures["tools"] is not None
    _, out, _ = compare(capsys, str(tmp_path / "base"), str(tmp_path / "new"), "-q")
    rows = {line[:56].strip(): line[56:].split() for line in out.splitlines() if line.startswith("      ")}
    assert rows["of which non-success"] == ["n/a", "n/a"] and rows["of which no result event"] == ["1", "1"]
    assert rows["duration (s)"] == ["n/a", "n/a"]


def test_a_killed_stream_run_is_still_a_failure(capsys, tmp_path):
    """fastify-killed.jsonl (stream-json) ends with no result event because it was killed: that is a
    failure in compare's own view too."""
    stream = CORPUS.parent / "real" / "stream"
    for side in ("base", "new"):
        (tmp_path / side).mkdir()
        for name in ("fastify-killed.jsonl", "express-res-send.jsonl"):
            (tmp_path / side / name).write_bytes((stream / name).read_bytes())
    _, out, _ = compare(capsys, str(tmp_path / "base"), str(tmp_path / "new"), "--json", "-q")
    figures = groups_of(out)["."]["base_behaviour"]
    assert (figures["measured"], figures["non_success"], figures["no_result"]) == (2, 1, 0)
