"""Issue 22: what a person types off the README's path does what they expect (no silent merges,
no dropped rulesets, one line per error, help that says what there is)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeledger.cli import build_parser, main
from citeledger.rules.loader import shipped_names

HERE = Path(__file__).parent.parent
EXPRESS = HERE / "fixtures" / "pass" / "cg22" / "ab-express"
REAL = HERE / "fixtures" / "real"
PASS = HERE / "fixtures" / "pass"
CODEX = HERE / "fixtures" / "codex"
CLI = [sys.executable, "-m", "citeledger.cli"]


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- item 1: no silent merges


@pytest.mark.parametrize("command", ["score", "explain"])
def test_score_of_a_shell_glob_over_many_runs_refuses_and_points_to_sweep(capsys, command):
    runs = sorted(str(p) for p in EXPRESS.glob("run-*.jsonl"))
    code, out, err = cli(capsys, command, *runs)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert "different sessions" in err and "citeledger sweep" in err


def test_score_of_two_runs_of_one_arm_refuses_naming_both(capsys):
    code, _, err = cli(capsys, "score", EXPRESS / "run-new-1.jsonl", EXPRESS / "run-new-3.jsonl")
    assert code == 2
    assert "run-new-1.jsonl" in err and "run-new-3.jsonl" in err and "2 different sessions" in err


def test_score_of_one_runs_segments_still_reads_them_as_one_session(capsys):
    code, out, _ = cli(capsys, "score", EXPRESS / "run-baseline-2.jsonl", EXPRESS / "run-baseline-2.t2.jsonl")
    assert code in (0, 1)
    assert "run-baseline-2.t3.jsonl" in out  # the rest of the same session, named


def test_score_of_renamed_segments_with_one_session_id_is_one_session(capsys, tmp_path):
    a, b = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    a.write_bytes((EXPRESS / "run-baseline-2.jsonl").read_bytes())
    b.write_bytes((EXPRESS / "run-baseline-2.t2.jsonl").read_bytes())
    code, _, err = cli(capsys, "score", a, b)
    assert code in (0, 1) and "different sessions" not in err


# ---------------------------------------------------------------- item 2: rulesets not dropped


def sensitivity_rulesets(capsys, *argv):
    code, out, err = cli(capsys, "sensitivity", *argv, "--json", "-q", "-j", "1")
    assert code in (0, 1), err
    return json.loads(out.splitlines()[0])["rulesets"]


def test_sensitivity_with_rulesets_and_ruleset_scores_both(capsys):
    assert sensitivity_rulesets(capsys, REAL, "--rulesets", "corrected", "--ruleset", "path-only") == [
        "default", "corrected", "path-only"]


def test_sensitivity_with_rulesets_given_twice_scores_both(capsys):
    assert sensitivity_rulesets(capsys, REAL, "--rulesets", "corrected", "--rulesets", "path-only") == [
        "default", "corrected", "path-only"]


def test_sensitivity_whose_rulesets_swallow_the_path_says_so(capsys):
    code, out, err = cli(capsys, "sensitivity", "--rulesets", "corrected", "path-only", REAL)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and str(REAL) in err and "--ruleset NAME" in err


def test_an_abbreviated_option_is_refused_not_guessed(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(REAL), "--rules", "corrected"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --rules" in capsys.readouterr().err


def test_every_parser_refuses_abbreviations():
    parser = build_parser()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        assert sub.allow_abbrev is False, name
    assert parser.allow_abbrev is False


# ---------------------------------------------------------------- item 7: one line per error


def test_sweep_of_a_missing_path_prints_one_line(capsys):
    code, out, err = cli(capsys, "sweep", "/nonexistent-citeledger")
    assert code == 2 and out == ""
    assert err.splitlines() == ["citeledger: error: /nonexistent-citeledger: no such file or directory"]


def test_sweep_json_into_a_closed_pipe_keeps_the_warnings_and_their_status():
    proc = subprocess.Popen([*CLI, "sweep", str(PASS), "--json", "-q", "-j", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader went away before the first byte, as `| head -0` does
    err = proc.stderr.read().decode()
    assert proc.wait() == 1  # the pass's truncated line: exit 1 whoever reads stdout (issue 44)
    assert "citeledger: warning:" in err  # not dropped
    assert "error" not in err  # the reader's leaving is no error


def test_html_into_a_new_folder_creates_it(capsys, tmp_path):
    target = tmp_path / "nodir" / "deeper" / "x.html"
    code, _, _ = cli(capsys, "score", EXPRESS / "run-new-1.jsonl", "--html", target)
    assert code in (0, 1) and target.read_text().startswith("<!DOCTYPE html>")


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


def test_ctrl_c_during_a_parallel_sweep_prints_no_worker_traceback(tmp_path):
    corpus = tmp_path / "corpus"
    for i in range(400):  # several seconds of work: the workers are busy when the interrupt lands
        (corpus / f"c{i}").mkdir(parents=True)
        for p in EXPRESS.glob("run-*.jsonl"):
            os.link(p, corpus / f"c{i}" / p.name)
    proc = subprocess.Popen([*CLI, "sweep", str(corpus), "-j", "2", "--out", str(tmp_path / "out")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 30
    while len(_children(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # until both workers run
    time.sleep(0.3)  # and are scoring
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group
    try:  # a bounded wait: a sweep that hangs on its way out fails here instead of stalling the suite
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the sweep was still running 60 s after Ctrl-C")
    err = err.decode()
    assert proc.returncode == 130, err  # interrupted mid-sweep, not finished
    assert "Process " not in err and "Traceback" not in err, err
    assert "citeledger: interrupted" in err
    assert not (tmp_path / "out").exists()  # no partial output


# ---------------------------------------------------------------- item 8: what it read, what it means


def test_score_session_of_a_log_with_subagents_names_them(capsys, tmp_path):
    log = next((REAL / "interactive").rglob("*.jsonl"))
    session = log.parent
    subagents = [p for p in session.rglob("subagents/*.jsonl")]
    if not subagents:  # build one: a copy of a log with a subagent beside it
        session = tmp_path / "proj"
        (session / "abc" / "subagents").mkdir(parents=True)
        (session / "abc.jsonl").write_bytes(log.read_bytes())
        (session / "abc" / "subagents" / "agent-1.jsonl").write_bytes(log.read_bytes())
        log = session / "abc.jsonl"
    code, out, err = cli(capsys, "score", "--session", log)
    assert "also read its subagent logs" in err and "agent-" in err  # stdout stays the reference's block
    assert "agent-" not in out
    code, out, _ = cli(capsys, "score", "--session", log, "--json")
    assert any("subagents" in f for f in json.loads(out)["added_inputs"])


def test_reactions_on_a_codex_rollout_places_its_tool_uses(capsys):
    # The codex reader records its function calls as tool uses (issue 23): the reads
    # list is placed per call; this rollout reads nothing after its explore calls.
    rollout = next(CODEX.glob("rollout-*.jsonl"))
    _, out, _ = cli(capsys, "score", rollout, "--ruleset", "reactions")
    assert "records no tool uses" not in out
    assert "Reads after explore calls" in out and "nothing read after it" in out


def test_a_bad_key_pattern_is_shown_as_typed(capsys):
    code, _, err = cli(capsys, "compare", PASS, "--arms", "baseline", "new", "--key", r"ab-(\w+", "-q")
    assert code == 2
    assert r"--key 'ab-(\w+'" in err and r"\\w" not in err


# ---------------------------------------------------------------- item 10: help


def help_of(capsys, *argv):
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", [[], ["score"], ["sweep"], ["compare"], ["sensitivity"], ["explain"]])
def test_help_lists_every_exit_status(capsys, command):
    text = help_of(capsys, *command)
    for status in ("0 ok", "1 ok with warnings", "2 usage", "3 internal", "130 interrupted", "143", "129"):
        assert status in text, (command, status)


@pytest.mark.parametrize("command", ["score", "explain", "sweep", "compare", "sensitivity"])
def test_help_names_the_shipped_rulesets(capsys, command):
    text = help_of(capsys, command).replace("- ", "-")  # argparse wraps at hyphens
    for name in shipped_names():
        assert name in text, (command, name)


def test_help_mentions_codex_logs(capsys):
    for command in ("score", "sweep"):
        assert "Codex" in help_of(capsys, command)
    assert "Codex" in help_of(capsys)


def test_compare_help_has_meaningful_metavars(capsys):
    text = help_of(capsys, "compare")
    assert "--resamples N" in text and "--confidence LEVEL" in text
    assert "RESAMPLES" not in text and "CONFIDENCE" not in text


# ---------------------------------------------------------------- items 3, 4, 9, 11: outputs that join, fit and read


def out_files(capsys, tmp_path, *argv):
    out = tmp_path / "out"
    code, text, err = cli(capsys, *argv, "-q", "-j", "1", "--out", out)
    assert code in (0, 1), err
    return out, text


def read_csv(path):
    import csv

    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_sweep_out_diagnostics_csv_joins_sessions_csv_on_the_full_key(capsys, tmp_path):
    out, _ = out_files(capsys, tmp_path, "sweep", PASS)
    sessions = {r["session"]: r for r in read_csv(out / "sessions.csv")}
    diagnostics = read_csv(out / "diagnostics.csv")
    assert diagnostics and all(r["session"] in sessions for r in diagnostics)
    short = {r["session"].rsplit("/", 1)[-1] for r in diagnostics}
    assert len({r["session"] for r in diagnostics}) > len(short)  # run-new-1 of several repos, kept apart


def test_sweep_text_lists_are_capped_with_where_the_rest_is(capsys, tmp_path):
    # three copies of the pass: every diagnostics list grows past the cap
    for i in range(3):
        os.symlink(PASS.resolve(), tmp_path / f"copy{i}")
    code, out, _ = cli(capsys, "sweep", tmp_path, "-q", "-j", "1")
    assert max(len(line) for line in out.splitlines()) < 400
    assert "more (all in --json / --out)" in out
    sidecars = next(line for line in out.splitlines() if line.startswith("  sidecars: "))
    assert sidecars.count(".jsonl") == 3


def test_sessions_csv_reads_into_pandas_lists_as_json_and_a_killed_run_has_no_efficiencies(capsys, tmp_path):
    out, _ = out_files(capsys, tmp_path, "sweep", REAL)
    rows = read_csv(out / "sessions.csv")
    for r in rows:
        assert isinstance(json.loads(r["inputs"]), list)
        calls = json.loads(r["call_efficiencies"])
        assert (r["efficiency"] == "") == (calls == []) or r["calls"] == "0"
    killed = next(r for r in rows if "killed" in r["session"])
    assert killed["efficiency"] == "" and json.loads(killed["call_efficiencies"]) == []


def test_compare_out_groups_csv_has_pooled_columns_and_run_names(capsys, tmp_path):
    out, text = out_files(capsys, tmp_path, "compare", PASS, "--arms", "baseline", "new")
    groups = read_csv(out / "groups.csv")
    express = next(g for g in groups if g["group"].endswith("ab-express"))
    assert float(express["base_pooled"]) > 0 and float(express["new_pooled"]) > 0
    assert all("run-baseline-" in s for s in json.loads(express["base_sessions"]))
    plot = next(line for line in text.splitlines() if line.startswith("plot: "))
    assert "diagnostics" not in plot  # the plot line names the plot; the rest is on the wrote line
    assert f"wrote into {out}: compare.jsonl" in text and "diagnostics.csv" in text


def test_sweep_out_says_what_it_wrote(capsys, tmp_path):
    out, text = out_files(capsys, tmp_path, "sweep", PASS)
    line = text.splitlines()[-1]
    assert line.startswith(f"wrote into {out}: sweep.jsonl, sessions.csv")
    for name in line.split(": ", 1)[1].split(", "):
        assert (out / name).is_file(), name


def test_compare_and_sensitivity_print_one_minus_sign(capsys):
    _, compared, _ = cli(capsys, "compare", PASS, "--arms", "baseline", "new", "-q", "-j", "1")
    _, varied, _ = cli(capsys, "sensitivity", REAL, "--ruleset", "corrected", "-q", "-j", "1")
    assert "\u2212" not in compared + varied
    assert " -" in compared and "-0." in varied


def test_two_folder_compare_says_baseline_as_arms_do(capsys):
    corpus = HERE / "fixtures" / "corpus"
    _, out, _ = cli(capsys, "compare", corpus / "base", corpus / "new", "-q", "-j", "1")
    assert "baseline runs" in out and "baseline med" in out and "base runs" not in out


# ---------------------------------------------------------------- items 5, 6: pages and plots that fit


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    argvs = {
        "session": ["score", EXPRESS / "run-new-2.jsonl", "--answer", "lib/**"],
        "explain": ["explain", EXPRESS / "run-new-2.jsonl"],
        "sweep": ["sweep", PASS, "-q", "-j", "1"],
        "compare": ["compare", PASS, "--arms", "baseline", "new", "-q", "-j", "1"],
        "sensitivity": ["sensitivity", REAL, "--ruleset", "corrected", "--ruleset", "path-only", "-q", "-j", "1"],
    }
    for name, argv in argvs.items():
        main([str(a) for a in argv] + ["--html", str(folder / f"{name}.html")])
    return folder


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("name", ["session", "explain", "sweep", "compare", "sensitivity"])
def test_a_page_opened_at_1400_or_800_px_fits_and_no_text_overlaps(pages, name, width, browser):
    from page_fit import OVERFLOW_JS, OVERLAP_JS, SCROLLED_JS

    page = browser.open(pages / f"{name}.html", width=width)
    try:
        assert page.eval(OVERFLOW_JS) == []
        assert page.eval(OVERLAP_JS) == []
        if width >= 1400 and name == "compare":  # its group table (issue 22 item 6) fits without scrolling
            assert page.eval(SCROLLED_JS) == []
    finally:
        page.close()


# What each page kind is read for, which must be in view at 800 px without scrolling a table sideways.
KEY_COLUMNS = {
    "session": ("table.files ul.why", "#occupancy .bar.occupancy", "table.residual td"),  # the why; occupancy
    "explain": ("table.files ul.why",),
    "compare": ("table.groups [data-field=difference]", "table.groups [data-field=ci]",  # the diff, its interval
                "table.behaviour td"),  # and the arm table's rows beside them
    "sweep": ("table [data-field=pooled]", "table [data-field=median]", "td[data-field=efficiency]"),
    "sensitivity": ("[data-field=delta_pooled]", "[data-field=delta_median]"),
}


@pytest.mark.parametrize("name", sorted(KEY_COLUMNS))
def test_a_pages_key_columns_are_in_view_at_800_px(pages, name, browser):
    from page_fit import OUT_OF_VIEW_JS

    page = browser.open(pages / f"{name}.html", width=800)
    try:
        for selector in KEY_COLUMNS[name]:
            assert page.eval(OUT_OF_VIEW_JS(selector)) == [], selector
    finally:
        page.close()


def test_the_session_page_shows_the_envelope_table_once_and_says_files(pages):
    html = (pages / "session.html").read_text()
    assert html.count('<section id="envelope-view">') == 1
    assert "sections credited" not in html and "files credited" in html
    answer_set = html.split('<section id="answer-set">', 1)[1].split("</section>", 1)[0]
    assert "<table" not in answer_set  # the envelope view's table marks the set already


def test_the_sweep_page_lists_runs_in_number_order_and_labels_the_count_axis(pages):
    html = (pages / "sweep.html").read_text()
    at = {n: html.index(f"cg22/ab-express/run-baseline-{n}.jsonl") for n in (1, 2, 10)}
    assert at[1] < at[2] < at[10]
    first = html.split('data-chart="hist-0-sessions"', 1)[1].split("</svg>", 1)[0]
    assert first.count("data-tick=") >= 2  # more than the peak alone


def test_sensitivity_plot_with_rotated_labels_keeps_them_off_the_legend():
    from citeledger.report.plot import delta_figure

    names = ["default", "corrected", "a-very-long-ruleset-name-indeed", "path-only", "ambiguity-off"]
    rows = [{"ruleset": n, "slice": s, "delta_pooled": 0.01 * i}
            for i, n in enumerate(names) for s in ("all", "single-question", "multi-turn")]
    fig = delta_figure(names, rows, [[0.01 * i] for i in range(len(names))], "default")
    fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = fig.axes[0].get_legend().get_window_extent(renderer)
    for label in fig.axes[0].get_xticklabels():
        assert label.get_rotation() != 0
        assert not label.get_window_extent(renderer).overlaps(legend), label.get_text()
