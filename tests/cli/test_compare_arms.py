"""compare PASS... --arms A B on a synthetic pass laid out as codegraph's A/B harness leaves it.

Every run is one explore call returning src/a.py (A chars) and src/b.py
(1000 - A chars) whose answer cites src/a.py only, so its efficiency is
A/1000 exactly; the medians, pooled figures and orders below are worked out
from the lists in this file, not from citeledger.
"""

import json
import statistics
from pathlib import Path

import pytest

from builders import events, response, section, write_jsonl
from citeledger.cli import main

# Efficiency (per mille) of each run, by run number.
EXPRESS = {
    "baseline": {1: 600, 2: 300, 3: 1000, 4: 450, 5: 500},
    "new": {i: v for i, v in enumerate([800, 700, 900, 650, 950, 850, 750, 1000, 600, 920, 880, 820], 1)},
}
FLASK = {"baseline": {1: 250, 2: 500}, "new": {1: 750, 2: 1000}}
# run-new-2 of express is two turns (see `multi_turn`): 300 of a.py + 700 of b.py, then 1000 of
# c.py, answers citing a.py and c.py: (300 + 1000) / 2000.
MULTI = 0.65


def run_text(per_mille: int) -> str:
    return response(section("src/a.py", size=per_mille), section("src/b.py", size=1000 - per_mille)) \
        if per_mille < 1000 else response(section("src/a.py", size=1000))


def run_events(per_mille: int):
    return events([run_text(per_mille)], "The work is in src/a.py.")


def report_line(text: str, paths) -> dict:
    """A CODEGRAPH_EXPLORE_DEBUG report of one call (the keys citeledger reads; docs/diagnostics.md)."""
    return {"tool": "codegraph_explore", "query": "q", "projectRoot": "/tmp/x", "budget": {"maxOutputChars": 13000},
            "envelope": {"chars": len(text)},
            "files": [{"path": p, "rank": i, "score": 10.0 / i, "graphScore": 0.1, "termHits": 1, "render": "whole",
                       "skipped": None, "clipped": False, "allowance": 500, "finalChars": 400, "share": 0.4}
                      for i, p in enumerate(paths, 1)]}


def lay_out_pass(root: Path, runs: dict, multi_turn: bool = False) -> None:
    """A repo's A/B directory: runs of both arms, and everything else the harness leaves."""
    for arm, by_run in runs.items():
        reports = []  # the arm's diagnostic sidecar: one report per explore call, in run order
        for i, per_mille in by_run.items():
            paths = ["src/a.py", "src/b.py"] if per_mille < 1000 else ["src/a.py"]
            if multi_turn and arm == "new" and i == 2:
                write_jsonl(root / "run-new-2.jsonl", run_events(300))
                second = response(section("src/c.py", size=1000))
                write_jsonl(root / "run-new-2.t2.jsonl", events([second], "And src/c.py.", start=2))
                reports += [report_line(run_text(300), paths), report_line(second, ["src/c.py"])]
            else:
                write_jsonl(root / f"run-{arm}-{i}.jsonl", run_events(per_mille))
                reports.append(report_line(run_text(per_mille), paths))
            (root / f"run-{arm}-{i}.err").write_text("")
        (root / f"mcp-{arm}.json").write_text('{"mcpServers": {}}')
        write_jsonl(root / f"explore-{arm}.jsonl", reports)
    (root / "hook-settings.json").write_text("{}")
    (root / "no-cli-hook.sh").write_text("#!/bin/sh\n")
    (root / "nocg-bin").mkdir(exist_ok=True)
    (root / "nocg-bin" / "codegraph").write_text("#!/bin/sh\nexit 1\n")
    # Tree copies: t-new is a checkout (package.json); t-base holds no marker at all.
    for tree in ("t-new", "t-base"):
        write_jsonl(root / tree / "test" / "fixtures" / "data.jsonl", [{"a": 1}])
    (root / "t-new" / "package.json").write_text("{}")


@pytest.fixture
def passes(tmp_path):
    top = tmp_path / "passes"
    lay_out_pass(top / "cg22" / "ab-express", EXPRESS, multi_turn=True)
    lay_out_pass(top / "cg22" / "ab-flask", FLASK)
    lay_out_pass(top / "cg23" / "ab-flask", {"baseline": {1: 100}, "new": {1: 900}})
    return top


def compare(capsys, *argv):
    code = main(["compare", *argv, "-q", "-j1"])
    out, err = capsys.readouterr()
    return code, out, err


def groups_of(out):
    return {r["group"]: r for r in map(json.loads, out.splitlines()) if r["record"] == "group"}


def expected_runs(runs: dict, arm: str, multi: bool = False) -> list[float]:
    return [MULTI if multi and arm == "new" and i == 2 else v / 1000 for i, v in sorted(runs[arm].items())]


def test_arms_by_label_grouped_by_directory_in_run_order(capsys, passes):
    code, out, err = compare(capsys, str(passes), "--arms", "baseline", "new", "--json")
    assert (code, err) == (0, "")  # sidecars, configs, hooks, .err files and tree copies: skipped silently
    g = groups_of(out)
    assert list(g) == ["cg22/ab-express", "cg22/ab-flask", "cg23/ab-flask", "(all)"]
    express = g["cg22/ab-express"]
    base, new = expected_runs(EXPRESS, "baseline"), expected_runs(EXPRESS, "new", multi=True)
    assert express["base_runs"] == pytest.approx(base) and express["new_runs"] == pytest.approx(new)
    # run order, not name order: run-new-10 comes after run-new-9, not after run-new-1
    assert [s.removeprefix("cg22/ab-express/") for s in express["new_sessions"]][8:11] == [
        "run-new-9.jsonl", "run-new-10.jsonl", "run-new-11.jsonl"]
    assert express["base_median"] == pytest.approx(0.5)  # 300 450 500 600 1000
    # 12 runs (the multi-turn one is 0.65): the middle two, sorted, are 0.82 and 0.85
    assert sorted(new)[5:7] == pytest.approx([0.82, 0.85])
    assert express["new_median"] == pytest.approx(statistics.median(new)) == pytest.approx(0.835)
    assert express["difference"] == pytest.approx(0.335)
    # pooled: sum of used over sum of envelope; every single-turn run has a 1000-char envelope
    used_new = sum(v for i, v in EXPRESS["new"].items() if i != 2) + 1300
    assert express["new_pooled"] == pytest.approx(used_new / (11 * 1000 + 2000))
    assert express["base_pooled"] == pytest.approx(2850 / 5000)
    flask = g["cg22/ab-flask"]
    assert (flask["base_median"], flask["new_median"]) == pytest.approx((0.375, 0.875))
    assert g["cg23/ab-flask"]["difference"] == pytest.approx(0.8)


def test_harness_lines_beside_the_table(capsys, passes):
    code, out, _ = compare(capsys, str(passes / "cg22"), "--arms", "baseline", "new")
    assert code == 0
    assert "arm baseline vs arm new under" in out  # the labels already say the sides (issue 22)
    # the harness's allocation lines: pooled, and per-run median [min–max]
    assert "    baseline  pooled efficiency   57.0%   per-run efficiency  50.0% [30.0%–100.0%]\n" in out
    assert "    baseline  pooled efficiency   37.5%   per-run efficiency  37.5% [25.0%–50.0%]\n" in out
    assert "    new       pooled efficiency   87.5%   per-run efficiency  87.5% [75.0%–100.0%]\n" in out


def test_several_passes_stay_apart_and_one_directory_is_named(capsys, passes):
    _, out, _ = compare(capsys, str(passes / "cg22"), str(passes / "cg23"), "--arms", "baseline", "new", "--json")
    assert list(groups_of(out)) == ["cg22/ab-express", "cg22/ab-flask", "cg23/ab-flask", "(all)"]
    _, out, _ = compare(capsys, str(passes / "cg22" / "ab-flask"), "--arms", "baseline", "new", "--json")
    assert list(groups_of(out)) == ["ab-flask", "(all)"]  # named, not "."


def test_labels_swap_sides(capsys, passes):
    _, out, _ = compare(capsys, str(passes / "cg23"), "--arms", "new", "baseline", "--json")
    g = groups_of(out)["ab-flask"]
    assert (g["base_runs"], g["new_runs"]) == ([0.9], [0.1])


def test_exclude_globs(capsys, passes):
    _, out, _ = compare(capsys, str(passes), "--arms", "baseline", "new", "--json",
                        "--exclude", "ab-flask", "--exclude", "cg22/ab-express/run-new-1*.jsonl")
    g = groups_of(out)
    assert list(g) == ["cg22/ab-express", "(all)"]
    # run-new-1, -10, -11, -12 excluded by the second glob
    assert g["cg22/ab-express"]["new_n"] == 8


def test_other_arms_are_listed_not_failed(capsys, passes):
    express = passes / "cg22" / "ab-express"
    write_jsonl(express / "run-headless-with.jsonl", run_events(500))
    write_jsonl(express / "run-headless-without.jsonl", events([], "No explore here."))
    code, out, _ = compare(capsys, str(express), "--arms", "baseline", "new")
    assert code == 0
    assert "sessions of other arms, not compared (2): with 1, without 1" in out
    # comparing the with/without pair instead: the no-codegraph arm is listed as no-explore
    code, out, _ = compare(capsys, str(express), "--arms", "with", "without", "--json")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [(r["session"], r["status"]) for r in records if r["record"] == "unscored"] == [
        ("run-headless-without.jsonl", "no-explore")]
    assert sum(r["record"] == "other-arm" for r in records) == 5 + 12


def test_bench_readme_layout_numbers_runs_by_folder(capsys, tmp_path):
    for i, (with_, without) in enumerate([(900, 100), (700, 300), (800, 200)], 1):
        write_jsonl(tmp_path / "express" / f"run{i}" / "run-headless-with.jsonl", run_events(with_))
        write_jsonl(tmp_path / "express" / f"run{i}" / "run-headless-without.jsonl", run_events(without))
    _, out, _ = compare(capsys, str(tmp_path), "--arms", "without", "with", "--json")
    g = groups_of(out)
    assert list(g) == ["express", "(all)"]
    assert g["express"]["base_runs"] == pytest.approx([0.1, 0.3, 0.2])
    assert g["express"]["new_median"] == pytest.approx(0.8)


def test_two_directory_form_still_works_and_needs_two(capsys, passes):
    a, b = passes / "cg22" / "ab-flask", passes / "cg23" / "ab-flask"
    code, out, _ = compare(capsys, str(a), str(b), "--json")
    assert groups_of(out)["."]["base_n"] == 4  # both arms of each directory, as before
    code, _, err = compare(capsys, str(a))
    assert code == 2 and "BASELINE NEW" in err


def test_the_plot_names_a_single_group_and_draws_the_interval(capsys, passes, monkeypatch, tmp_path):
    import citeledger.report.plot as plot

    seen = {}
    real = plot.strip_plot

    def spy(groups, series, **kw):
        seen.update(groups=groups, series=series, **kw)
        return real(groups, series, **kw)

    monkeypatch.setattr(plot, "strip_plot", spy)
    compare(capsys, str(passes / "cg22" / "ab-flask"), "--arms", "baseline", "new", "--plot", str(tmp_path / "p"))
    assert [label for label, _ in seen["groups"]] == ["ab-flask"]
    assert seen["series"] == ("baseline", "new")
    (low, high), = seen["intervals"]
    # two runs a side: the extreme differences 1.0 - 0.25 and 0.75 - 0.5 each have chance 1/16 > 2.5%
    assert (low, high) == pytest.approx((0.25, 0.75))
    assert (tmp_path / "p.png").read_bytes().startswith(b"\x89PNG")


def test_bootstrap_interval_moves_with_the_seed_and_nothing_else(capsys, passes):
    express = str(passes / "cg22" / "ab-express")

    def interval(*extra):
        _, out, _ = compare(capsys, express, "--arms", "baseline", "new", "--json", *extra)
        g = groups_of(out)["ab-express"]
        return g["ci_low"], g["ci_high"]

    first = interval()
    assert interval("--seed", "0") == first
    assert interval("--top", "1", "--key", "parent") == first  # other options leave it alone
    assert interval("--seed", "7") != first  # 5 and 12 runs: the resamples differ by seed
    assert interval("--seed", "7") == interval("--seed", "7")
    low, high = first
    assert low < 0.335 < high


def test_a_label_with_no_run_is_a_usage_error(capsys, passes):
    code, out, err = compare(capsys, str(passes), "--arms", "baseline", "nwe")
    assert code == 2 and out == ""
    assert err == (f"citeledger: error: --arms nwe: no run-nwe-N.jsonl or run-headless-nwe.jsonl under {passes} "
                   "(arms found: baseline, new)\n")


class _LogReader:
    """A third-party format: `<name>.<part>.log` files make one session; `<name>.attachments/` is
    read with it. Each line is `answer|path:size,path:size` (one turn, one explore call)."""

    name = "test-log"

    def claims(self, path):
        return path.endswith(".log")

    def sessions(self, paths):
        from citeledger.core import SessionFiles

        by_name: dict = {}
        for p in paths:
            by_name.setdefault(p.rsplit(".", 2)[0], []).append(p)
        return [SessionFiles(tuple(sorted(ps))) for ps in by_name.values()]

    def part_of_session(self, dirpath):
        return dirpath.endswith(".attachments")

    def read(self, paths, options):
        from citeledger.core import Origin, ResultText, ToolResult, Transcript

        responses, results = [], []
        for path in paths:
            answer, returned = Path(path).read_text().strip().split("|")
            text = response(*(section(p, size=int(n)) for p, n in (r.split(":") for r in returned.split(","))))
            responses.append(ToolResult(name="explore", blocks=(text,), origin=Origin(path, 1), tool_use_id=f"t{len(responses)}"))
            results.append(ResultText(answer, Origin(path, 1)))
        return Transcript("log", tuple(paths), tuple(responses), tuple(results), (), (), reader=self.name,
                          turns=len(paths))


class _LogPlugin:
    from citeledger.core import hookimpl

    @hookimpl
    def citeledger_register_readers(self, register):
        register(_LogReader)


def test_discovery_asks_a_plugin_reader_how_its_files_make_sessions(capsys, tmp_path):
    from citeledger.core import plugins

    (tmp_path / "q.1.log").write_text("see src/a.py|src/a.py:300,src/b.py:700\n")
    (tmp_path / "q.2.log").write_text("and src/b.py|src/b.py:1000\n")
    (tmp_path / "q.attachments").mkdir()
    (tmp_path / "q.attachments" / "x.log").write_text("never read alone|src/c.py:100\n")
    pm = plugins.manager()
    pm.register(_LogPlugin(), name="log-for-test")
    plugins.readers.cache_clear()
    try:
        code = main(["sweep", str(tmp_path), "--json", "-q", "-j1"])
    finally:
        pm.unregister(name="log-for-test")
        plugins.readers.cache_clear()
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (row,) = [r for r in records if r["record"] == "session"]
    assert code == 0
    assert (row["reader"], row["turns"], [Path(f).name for f in row["inputs"]]) == ("test-log", 2, ["q.1.log", "q.2.log"])
    # both answers cite src/a.py and src/b.py: all 2000 chars used
    assert (row["envelope"], row["used"]) == (2000, 2000)
    assert records[0]["multi_turn"] == 1


def test_a_sweep_of_the_pass_sees_only_the_runs(capsys, passes):
    # t-new/ (a checkout: package.json) and t-base/ (no marker, but a t-* copy beside run-* files)
    # hold data.jsonl files that no reader may see; explore-*.jsonl are sidecars.
    code = main(["sweep", str(passes), "--json", "-q", "-j1"])
    out, err = capsys.readouterr()
    sessions = [r["session"] for r in map(json.loads, out.splitlines()) if r["record"] == "session"]
    assert (code, err) == (0, "")
    assert len(sessions) == 5 + 12 + 2 + 2 + 1 + 1
    assert not any("t-" in s or "explore-" in s for s in sessions)


def test_a_t_folder_elsewhere_is_walked(capsys, tmp_path):
    write_jsonl(tmp_path / "t-results" / "run.jsonl", run_events(400))
    code = main(["sweep", str(tmp_path), "--json", "-q", "-j1"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert [r["session"] for r in map(json.loads, out.splitlines()) if r["record"] == "session"] == ["t-results/run.jsonl"]


def test_the_same_runs_give_one_interval_in_every_row_and_folder(capsys, passes, tmp_path):
    """The seed comes from --seed and the runs' values, never from a name: the group row and the
    `(all)` row of one group, and a copy of the pass under another folder name, agree."""
    import shutil

    express = passes / "cg22" / "ab-express"
    renamed = tmp_path / "another-name"
    shutil.copytree(express, renamed)
    _, out, _ = compare(capsys, str(express), "--arms", "baseline", "new", "--json")
    rows = groups_of(out)
    _, out, _ = compare(capsys, str(renamed), "--arms", "baseline", "new", "--json")
    moved = groups_of(out)
    intervals = {(g["ci_low"], g["ci_high"]) for g in (rows["ab-express"], rows["(all)"], moved["another-name"],
                                                       moved["(all)"])}
    assert len(intervals) == 1 and None not in next(iter(intervals))
