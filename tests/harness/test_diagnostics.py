"""The explore diagnostic sidecar: reading it, joining it to calls, the analyses, the commands.

Expected reports, joins and credits are read off the fixture files by hand
(tests/fixtures/real/explore/*/*.debug.json, tests/fixtures/pass/cg22/;
fixtures/DIAGNOSTIC.md describes the format), or follow from the strings
built in the test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import forked_python
from builders import EXPLORE, response, section, write_jsonl
from citeledger.core.accountant import score
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.harness.diagnostics import read_diagnostics, sidecar_for
from citeledger.report import allocation as a
from citeledger.report import diagnostics as d
from citeledger.rules.loader import load_ruleset

ROOT = Path(__file__).parent.parent / "fixtures"
AB = ROOT / "pass" / "cg22" / "ab-express"
DEFAULT = load_ruleset("default")


def cli(*args):
    """`python -m citeledger.cli ARGS`, in a process forked from a warm interpreter (tests/forked_python.py)."""
    return forked_python.run([sys.executable, "-m", "citeledger.cli", *map(str, args)], capture_output=True, text=True)


def report(query, chars, files, note=None):
    """A report line as codegraph writes it (only the keys citeledger reads, plus tool)."""
    out = {"tool": "codegraph_explore", "query": query, "projectRoot": "/w", "indexedFileCount": 3,
           "budget": {"maxOutputChars": 13000}, "envelope": {"chars": chars}, "files": []}
    if note:
        out["note"] = note
    for rank, (path, score_, render) in enumerate(files, 1):
        out["files"].append({"path": path, "rank": rank, "score": score_, "graphScore": 0.1, "termHits": 1,
                             "entry": rank == 1, "central": False, "render": render,
                             "skipped": None if render else "max-files", "clipped": False, "allowance": 100,
                             "finalChars": 50 if render else 0, "share": 0.1})
    return json.dumps(out)


def explore_session(tmp_path, texts, answer, queries=None, name="run-new-1"):
    rows = []
    for i, text in enumerate(texts, 1):
        q = (queries or ["q"] * len(texts))[i - 1]
        rows.append({"type": "assistant", "message": {"id": f"m{i}", "content": [
            {"type": "tool_use", "id": f"t{i}", "name": EXPLORE, "input": {"query": q}}]}})
        rows.append({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": [{"type": "text", "text": text}]}]}})
    rows.append({"type": "result", "subtype": "success", "result": answer})
    return write_jsonl(tmp_path / f"{name}.jsonl", rows)


def join(path, sidecar):
    t = ClaudeStreamReader().read([str(path)])
    reports, warnings = read_diagnostics(str(sidecar), "codegraph_explore")
    return d.diagnose(t, score(t, DEFAULT), DEFAULT, reports, [str(sidecar)]), warnings


# ---------------------------------------------------------------- reading


def test_reads_a_real_report_as_codegraph_wrote_it():
    reports, warnings = read_diagnostics(str(ROOT / "real/explore/express-4.21.2/res-send.debug.json"), "codegraph_explore")
    assert warnings == ()
    (r,) = reports
    assert (r.query, r.chars, r.budget, r.note) == ("how does res.send decide the Content-Type and ETag", 13817, 13000, None)
    assert [(f.path, f.rank, f.render, f.final_chars) for f in r.files] == [
        ("lib/response.js", 1, "clusters", 8031), ("lib/router/index.js", 3, "clusters", 2906),
        ("lib/utils.js", 2, "clusters", 1384)]
    first = r.files[0]
    assert (first.score, first.flags, first.clipped, first.allowance, first.share) == (75.2, ("entry",), True, 8183, 0.581241)
    assert r.files[1].flags == ("central", "entry")


def test_the_empty_report_keeps_its_note():
    (r,), _ = read_diagnostics(str(ROOT / "real/explore/express-4.21.2/no-match.debug.json"), "codegraph_explore")
    assert (r.chars, r.files, r.note) == (0, (), "no relevant code found — empty subgraph")


def test_bad_lines_are_warnings_naming_file_and_line_and_good_lines_still_read(tmp_path):
    good = report("q", 10, [("a.js", 5.0, "whole")])
    side = tmp_path / "explore-new.jsonl"
    side.write_text("\n".join([good, "not json at all", good[:40], '{"tool":"other","query":"q"}',
                               '{"tool":"codegraph_explore","query":"q","envelope":{},"budget":{},"files":[]}', good]) + "\n")
    reports, warnings = read_diagnostics(str(side), "codegraph_explore")
    assert [r.origin.line for r in reports] == [1, 6]
    assert [(w.file, w.line) for w in warnings] == [(str(side), 2), (str(side), 3), (str(side), 4), (str(side), 5)]
    assert "truncated" in warnings[1].message
    assert "tool is 'other'" in warnings[2].message
    assert "chars is missing" in warnings[3].message


def test_a_report_is_the_rulesets_explore_tools(tmp_path):
    """A report counts when its `tool` is the ruleset's explore tool; a ruleset with no
    explore source counts none, and says why."""
    side = tmp_path / "explore-new.jsonl"
    side.write_text(report("q", 10, [("a.js", 5.0, "whole")]) + "\n")
    assert len(read_diagnostics(str(side), "codegraph_explore")[0]) == 1
    reports, (warning,) = read_diagnostics(str(side), "acme_explore")
    assert reports == () and "tool is 'codegraph_explore', not 'acme_explore'" in warning.message
    reports, (warning,) = read_diagnostics(str(side), None)
    assert reports == () and "the ruleset counts no explore tool" in warning.message


def test_sidecar_beside_a_run_is_found_by_its_label():
    assert sidecar_for([str(AB / "run-new-2.jsonl"), str(AB / "run-new-2.t2.jsonl")]) == str(AB / "explore-new.jsonl")
    assert sidecar_for([str(AB / "run-baseline-11.jsonl")]) == str(AB / "explore-baseline.jsonl")
    headless = ROOT / "pass" / "cg22" / "headless-express"
    assert sidecar_for([str(headless / "run-headless-with.jsonl")]) == str(headless / "explore-with.jsonl")
    assert sidecar_for([str(headless / "run-headless-without.jsonl")]) is None  # no codegraph in that arm


# ---------------------------------------------------------------- joining


def test_a_real_run_joins_to_its_report_and_each_file_gets_its_verdict():
    diag, warnings = join(AB / "run-new-3.jsonl", AB / "explore-new.jsonl")
    assert warnings == ()
    (j,) = diag.joins
    # Lines 4 and 12 of explore-new.jsonl are byte-identical reports of this query
    # (run 3 and run 11 asked it): the first fitting one is named.
    assert (j.status, j.call, j.reason) == ("matched", 1, f"{AB / 'explore-new.jsonl'}:4")
    # Ranks and renders from line 4; the answer names lib/response.js and lib/router/layer.js.
    assert [(r.rank, r.path, r.render, r.cited) for r in diag.rows] == [
        (1, "lib/response.js", "clusters", True), (2, "lib/router/layer.js", "clusters", True),
        (3, "lib/router/index.js", "clusters", False), (4, "lib/application.js", "clusters", False)]
    # score shares: 78.5, 20, 40.9, 19.8 over their sum 159.2
    assert abs(diag.rows[0].score_share - 78.5 / 159.2) < 1e-12
    rates = {r["rank"]: (r["cited"], r["rendered"]) for r in a.summary([diag])["by_rank"]}
    assert rates == {1: (1, 1), 2: (1, 1), 3: (0, 1), 4: (0, 1)}


def test_every_call_of_an_arm_matches_one_line_of_its_sidecar():
    # The harness appends one report per explore call: 14 lines per arm, and
    # the arm's runs made 14 explore calls that reached codegraph.
    done = cli("sweep", "-q", "-j1", "--json", AB)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    header = records[0]
    assert not any(r.get("session", "").startswith("explore-") for r in records if r["record"] == "session")
    assert header["sessions"] == 24  # 12 runs per arm; the sidecars (and the t-* tree copies) are not sessions
    summary = {r["arm"]: r for r in records if r["record"] == "diagnostics"}["all"]
    assert (summary["responses"], summary["matched"]) == (28, 28)
    sessions = [r for r in records if r["record"] == "diagnostics-session"]
    # 12 runs per arm, each beside its arm's sidecar; the killed run-baseline-12
    # has no answer but its explore call reached codegraph and joins.
    assert len(sessions) == 24
    assert {s["sidecars"][0].rsplit("/", 1)[1] for s in sessions} == {"explore-new.jsonl", "explore-baseline.jsonl"}


ENVELOPE = response(section("lib/a.js", " — alpha(function)", size=100), section("lib/b.js", " — beta(function)", size=60))
LENGTH = len(ENVELOPE)  # ASCII: UTF-16 units = characters


def test_a_report_of_another_length_is_no_match_and_a_warning_names_the_call(tmp_path):
    run = explore_session(tmp_path, [ENVELOPE], "See lib/a.js.")
    side = tmp_path / "explore-new.jsonl"
    side.write_text(report("q", LENGTH + 7, [("lib/a.js", 9.0, "clusters"), ("lib/b.js", 1.0, "whole")]) + "\n")
    diag, _ = join(run, side)
    (j,) = diag.joins
    assert j.status == "unmatched" and f"none of this response's length ({LENGTH} chars)" in j.reason
    assert diag.rows == ()
    (w,) = d.join_warnings(diag)
    assert (w.file, w.line) == (str(run), 2)  # the tool_result's line


def test_two_different_reports_that_both_fit_are_ambiguous_never_a_guess(tmp_path):
    run = explore_session(tmp_path, [ENVELOPE], "See lib/a.js.")
    side = tmp_path / "explore-new.jsonl"
    one = report("q", LENGTH, [("lib/a.js", 9.0, "clusters"), ("lib/b.js", 1.0, "whole")])
    other = report("q", LENGTH, [("lib/b.js", 9.0, "clusters"), ("lib/a.js", 1.0, "whole")])
    side.write_text(one + "\n" + other + "\n" + one + "\n")
    diag, _ = join(run, side)
    (j,) = diag.joins
    assert j.status == "unmatched" and j.reason.startswith("ambiguous: 2 different reports fit")


def test_a_join_by_query_length_and_files_and_the_analyses(tmp_path):
    empty = "No relevant code found for \"zz\".\n"
    run = explore_session(tmp_path, [empty, ENVELOPE], "`alpha` is in lib/a.js; lib/c.js too.", queries=["zz", "q"])
    side = tmp_path / "explore-new.jsonl"
    side.write_text("\n".join([
        report("q", LENGTH + 1, [("lib/a.js", 9.0, "clusters"), ("lib/b.js", 1.0, "whole")]),  # another run's, longer
        report("zz", 0, [], note="no relevant code found — empty subgraph"),
        # the fit: lib/c.js ranked third, never rendered (max-files)
        report("q", LENGTH, [("lib/a.js", 6.0, "clusters"), ("lib/b.js", 3.0, "whole"), ("lib/c.js", 1.0, None)]),
    ]) + "\n")
    diag, _ = join(run, side)
    assert [(j.response, j.call, j.status) for j in diag.joins] == [(1, None, "matched"), (2, 1, "matched")]
    assert diag.joins[0].reason.endswith(":2") and diag.joins[1].reason.endswith(":3")
    rows = {r.path: r for r in diag.rows}
    assert (rows["lib/a.js"].cited, rows["lib/a.js"].channel, rows["lib/a.js"].chars) == (True, "path", 100)
    assert (rows["lib/b.js"].cited, rows["lib/b.js"].chars) == (False, 60)
    # The envelope is the two sections (100 + 60; the trailer is charged to the last file, b.js).
    assert rows["lib/b.js"].envelope_share == 60 / 160
    assert (rows["lib/c.js"].render, rows["lib/c.js"].cited, rows["lib/c.js"].evidence) == (None, True, "lib/c.js")
    pooled = a.summary([diag])
    assert [r["path"] for r in pooled["never_rendered_cited"]] == ["lib/c.js"]
    assert pooled["by_render"] == [
        {"render": "whole", "files": 1, "chars": 60, "uncited_files": 1, "uncited_chars": 60, "uncited_share": 1.0},
        {"render": "clusters", "files": 1, "chars": 100, "uncited_files": 0, "uncited_chars": 0, "uncited_share": 0.0},
    ]
    flags = {f["flag"]: (f["files"], f["uncited_chars"]) for f in pooled["by_flag"]}
    assert flags == {"entry": (1, 0), "(none)": (1, 60)}  # only rank 1 carries `entry` in report()


def test_spearman_by_hand():
    assert a.spearman([1, 2, 3], [10, 20, 30]) == 1.0
    assert a.spearman([1, 2, 3], [30, 20, 10]) == -1.0
    # ranks x: 1 2 3 4, y: 2 1 4 3 -> d^2 sum 4 -> 1 - 6*4/(4*15) = 0.6
    assert abs(a.spearman([1, 2, 3, 4], [5, 1, 9, 7]) - 0.6) < 1e-12
    assert a.spearman([1, 2], [1, 2]) is None


# ---------------------------------------------------------------- commands


def test_score_with_a_truncated_sidecar_warns_and_exits_1(tmp_path):
    side = tmp_path / "side.jsonl"
    lines = (AB / "explore-new.jsonl").read_text().splitlines()
    side.write_text(lines[3] + "\n" + lines[0][:500])  # sendFile's report, then a killed write
    done = cli("score", AB / "run-new-3.jsonl", "--diagnostics", side)
    assert done.returncode == 1
    assert f"warning: {side}:2: diagnostic line not JSON (truncated), skipped" in done.stderr
    assert "1/1 response(s) matched" in done.stdout


def test_score_json_carries_the_join_and_the_csv_and_plot_are_written(tmp_path):
    out = tmp_path / "d"
    done = cli("score", "--json", AB / "run-new-3.jsonl", "--diagnostics", AB / "explore-new.jsonl", "--diagnostics-out", out)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    calls = data["diagnostics"]["session"]["calls"]
    assert [(c["call"], c["status"]) for c in calls] == [(1, "matched")]
    assert data["efficiency"] == json.loads(cli("score", "--json", AB / "run-new-3.jsonl").stdout)["efficiency"]
    header = (out / "diagnostics.csv").read_text().splitlines()[0]
    assert header.startswith("session,arm,call,path,rank,score")
    assert (out / "diagnostics.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (out / "diagnostics.svg").read_bytes()


def test_a_missing_diagnostics_file_is_an_input_error(tmp_path):
    done = cli("score", AB / "run-new-3.jsonl", "--diagnostics", tmp_path / "nope.jsonl")
    assert done.returncode == 2
    assert done.stderr.strip() == f"citeledger: error: {tmp_path / 'nope.jsonl'}: no such file"


def test_compare_reports_each_arm(tmp_path):
    done = cli("compare", "-q", "-j1", "--json", "--resamples", "50", ROOT / "pass/cg22/ab-flask", AB)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    arms = {r["arm"]: (r["responses"], r["matched"]) for r in records if r["record"] == "diagnostics"}
    # each side holds both harness arms: 2 sidecars per directory
    flask = sum(1 for _ in open(ROOT / "pass/cg22/ab-flask/explore-new.jsonl")) + \
        sum(1 for _ in open(ROOT / "pass/cg22/ab-flask/explore-baseline.jsonl"))
    assert arms == {"baseline": (flask, flask), "new": (28, 28)}


def test_sweep_out_writes_one_csv_row_per_ranked_file_of_each_joined_call(tmp_path):
    group = ROOT / "pass" / "cg23" / "ab-express"
    # 4 new-arm runs, one explore call each, one sidecar line each (the baseline,
    # codegraph 1.4.1, wrote none): a row per ranked file of each report.
    lines = [json.loads(line) for line in (group / "explore-new.jsonl").read_text().splitlines()]
    assert len(lines) == 4 and len({line["query"] for line in lines}) == 4
    done = cli("sweep", "-q", "-j1", "--out", tmp_path / "out", group)
    assert done.returncode in (0, 1), done.stderr
    rows = (tmp_path / "out" / "diagnostics.csv").read_text().splitlines()
    assert len(rows) - 1 == sum(len(line["files"]) for line in lines)
    assert all(r.split(",")[1] == "new" for r in rows[1:])  # the arm label, from explore-new.jsonl
    assert "Diagnostics, pooled over the sweep: 4/4 response(s) matched over 4 session(s)" in \
        (tmp_path / "out" / "summary.txt").read_text()


def test_explain_json_carries_the_join_and_the_reads(tmp_path):
    done = cli("explain", "--json", "--ruleset", "reactions", AB / "run-new-2.jsonl", AB / "run-new-2.t2.jsonl",
               AB / "run-new-2.t3.jsonl", "--diagnostics", AB / "explore-new.jsonl")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    # t1 router-param (explore-new.jsonl line 2), t2 view-render (line 3: its first fitting line)
    assert [(c["call"], c["reason"].rsplit(":", 1)[1]) for c in data["diagnostics"]["session"]["calls"]] == [(1, "2"), (2, "3")]
    # t3 Greps lib/application.js, which both calls returned: read after each
    assert [[r["returned"] for r in c["read_after"]] for c in data["reads"]] == [["lib/application.js"], ["lib/application.js"]]


def test_a_file_another_call_returned_keeps_its_verdict_where_it_was_cut(tmp_path):
    second = response(section("lib/b.js", " — beta(function)", size=80))
    run = explore_session(tmp_path, [ENVELOPE, second], "See lib/a.js.", queries=["q", "r"])
    side = tmp_path / "explore-new.jsonl"
    side.write_text("\n".join([
        report("q", LENGTH, [("lib/a.js", 6.0, "clusters"), ("lib/b.js", 3.0, "whole")]),
        # call 2 ranked lib/a.js too, but cut it (max-files): no section there
        report("r", len(second), [("lib/b.js", 5.0, "whole"), ("lib/a.js", 4.0, None)]),
    ]) + "\n")
    diag, _ = join(run, side)
    row = next(r for r in diag.rows if r.call == 2 and r.path == "lib/a.js")
    assert (row.render, row.chars, row.cited, row.channel) == (None, 0, True, "path")
    assert [(r["call"], r["path"]) for r in a.summary([diag])["never_rendered_cited"]] == [(2, "lib/a.js")]


def test_a_file_dropped_by_the_hard_ceiling_may_lack_its_section(tmp_path):
    run = explore_session(tmp_path, [ENVELOPE], "See lib/a.js.")
    side = tmp_path / "explore-new.jsonl"
    side.write_text(report("q", LENGTH, [("lib/a.js", 6.0, "clusters"), ("lib/b.js", 3.0, "whole"),
                                         ("lib/c.js", 1.0, "dropped")]) + "\n")
    diag, _ = join(run, side)
    assert diag.joins[0].status == "matched"
    # a non-dropped rendered file without a section is no fit
    side.write_text(report("q", LENGTH, [("lib/a.js", 6.0, "clusters"), ("lib/b.js", 3.0, "whole"),
                                         ("lib/c.js", 1.0, "clusters")]) + "\n")
    diag, _ = join(run, side)
    assert diag.joins[0].status == "unmatched"
