"""The HTML pages of score, explain, sweep and compare, opened in a real headless chromium.

Each test writes a page with `--html`, loads it from disk, checks that it
loaded without a console message, exception or network request, and reads
numbers back from the rendered DOM (data-value attributes and cell text),
comparing them with the JSON output of the same command and with numbers
worked out by hand (tests/fixtures/real/EXPECTED.md, tests/fixtures/corpus/make.py).

chromium is required (CI installs it): a missing browser fails, with how to install it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browser import chromium_path
from builders import response, section, session
from test_real_fixtures import REAL

from citeledger.cli import main

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"
BASE, NEW = str(CORPUS / "base"), str(CORPUS / "new")
SENDFILE = REAL / "stream" / "express-sendfile-2calls.jsonl"


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def load(browser, path):
    page = browser.open(path)
    assert page.eval("document.readyState") == "complete"
    assert page.problems() == []
    # Self-contained: nothing was fetched (no stylesheet, script, image or font from anywhere).
    assert page.eval("performance.getEntriesByType('resource').length") == 0
    return page


FIELDS_JS = """(function (root) {
  var out = {};
  root.querySelectorAll('[data-field]').forEach(function (el) {
    (out[el.dataset.field] = out[el.dataset.field] || []).push([JSON.parse(el.dataset.value), el.textContent]);
  });
  return out;
})(%s)"""


def fields(page, root="document.querySelector('dl.summary')"):
    return page.eval(FIELDS_JS % root)


# ---------------------------------------------------------------- a session


def test_score_page_numbers_equal_the_json_output(browser, tmp_path, capsys):
    html = tmp_path / "score.html"
    code, out_text, _ = cli(capsys, "score", SENDFILE, "--answer", "lib/*.js", "--html", html)
    assert code == 0
    _, out_json, _ = cli(capsys, "score", SENDFILE, "--answer", "lib/*.js", "--json")
    data = json.loads(out_json)
    page = load(browser, html)
    assert page.eval("document.body.dataset.page") == "session"

    summary = fields(page)
    for key in ("efficiency", "used", "envelope", "lower_bound", "files_used", "files_returned"):
        assert summary[key][0][0] == data[key], key
    # As EXPECTED.md works it out: 16,930 of 25,145 chars, path alone 13,650.
    assert summary["used"][0] == [16930, "16,930"]
    assert summary["envelope"][0] == [25145, "25,145"]
    assert summary["efficiency"][0][1] == "67.3%" and "67.3%" in out_text
    assert summary["lower_bound"][0][1] == "54.3%"

    rows = page.eval("""Array.from(document.querySelectorAll('#files tbody tr')).map(function (tr) {
        return [tr.dataset.path, JSON.parse(tr.querySelector('[data-field=chars]').dataset.value),
                JSON.parse(tr.querySelector('[data-field=share]').dataset.value),
                tr.querySelector('.mark').classList.contains('yes'), tr.querySelector('td.channel').textContent.trim()]; })""")
    assert rows == [
        [f["path"], f["chars"], f["share"], f["channel"] is not None, f["channel"] or "—"] for f in data["files"]
    ]
    assert [r[0] for r in rows if r[3]] == ["lib/response.js", "lib/application.js", "lib/utils.js"]

    calls = page.eval("""Array.from(document.querySelectorAll('.call')).map(function (c) {
        var h = c.querySelector('h3');
        return [JSON.parse(h.querySelector('[data-field=efficiency]').dataset.value),
                JSON.parse(h.querySelector('[data-field=used]').dataset.value),
                JSON.parse(h.querySelector('[data-field=envelope]').dataset.value),
                c.querySelectorAll('.bar > a').length,
                Array.from(c.querySelectorAll('.bar > *')).reduce(function (s, e) { return s + e.getBoundingClientRect().width; }, 0) /
                  c.querySelector('.bar').clientWidth]; })""")
    assert [c[:4] for c in calls] == [[c["efficiency"], c["used"], c["envelope"], len(c["files"])] for c in data["calls"]]
    for c in calls:  # the segments fill the bar (chars of every section, trailing blocks included)
        assert c[4] == pytest.approx(1.0, abs=0.02)

    # The answer set: lib/*.js holds response, application and utils (EXPECTED.md): 16,930 chars.
    share = fields(page, "document.getElementById('answer-set')")
    assert share["answer_set_share"][0][0] == data["answer_set"]["share"]
    assert share["answer_set_chars"][0][0] == 16930

    # The envelope view (spec section 8) reads as --json's: 25,145 chars over 2 responses (EXPECTED.md).
    view = fields(page, "document.getElementById('envelope-view')")
    assert view["envelope_chars"][0][0] == data["envelope_view"]["chars"] == 25145
    assert view["responses"][0][0] == data["envelope_view"]["responses"] == 2
    assert view["answer_share"][0][0] == data["envelope_view"]["answer_share"]


def test_citations_that_credited_a_file_are_highlighted_and_link_to_its_row(browser, tmp_path, capsys):
    html = tmp_path / "score.html"
    cli(capsys, "score", SENDFILE, "--html", html)
    page = load(browser, html)
    cites = page.eval("""Array.from(document.querySelectorAll('#answer a.cite')).map(function (a) {
        var row = document.querySelector(a.getAttribute('href'));
        return [a.firstChild.textContent, row.dataset.path, row.querySelector('.mark').classList.contains('yes')]; })""")
    # The answer cites lib/response.js three times by path, and the symbols `etag`
    # (only lib/utils.js defines it) and `defaultConfiguration` (lib/application.js).
    assert cites == [
        ["lib/response.js", "lib/response.js", True],
        ["lib/response.js", "lib/response.js", True],
        ["lib/response.js", "lib/response.js", True],
        ["etag", "lib/utils.js", True],
        ["defaultConfiguration", "lib/application.js", True],
    ]
    # The answer reads the same as the transcript's result text.
    answer = json.loads(SENDFILE.read_text().splitlines()[-1])["result"]
    assert page.eval("document.querySelector('#answer pre').textContent").replace("[1]", "").replace(
        "[3]", "").replace("[4]", "") == answer


def test_explain_page_says_each_channels_reason(browser, tmp_path, capsys):
    fixture = REAL / "stream" / "express-debug-3owners.jsonl"
    html = tmp_path / "explain.html"
    code, text, _ = cli(capsys, "explain", fixture, "--html", html)
    _, out_json, _ = cli(capsys, "explain", fixture, "--json")
    data = json.loads(out_json)
    page = load(browser, html)
    why = page.eval("""Array.from(document.querySelectorAll('#files tbody tr')).map(function (tr) {
        return [tr.dataset.path, Array.from(tr.querySelectorAll('.why li')).map(function (li) {
            return [li.dataset.channel, li.dataset.credited === 'true', li.textContent]; })]; })""")
    expected = [
        [f["path"], [[x["channel"], x["credited"], f"{x['channel']} {'yes' if x['credited'] else 'no'} — {x['reason']}"]
                     for x in f["findings"]]]
        for f in data["files"]
    ]
    assert why == expected
    # The guard explain prints is on the page: `debug` is owned by 3 files.
    assert "symbol `debug`: owned by 3 files, ambiguity cutoff (limit 3)" in text
    assert any("ambiguity cutoff (limit 3)" in li[2] for _, lis in why for li in lis)


def test_script_in_a_path_or_answer_is_shown_not_run(browser, tmp_path, capsys):
    evil_path = "lib/<script>window.pwned=1</script>x.js"
    text = response(section(evil_path, size=200), section("src/a.py", size=100))
    answer = 'See src/a.py. <script>window.pwned=2</script><img src=x onerror="window.pwned=3"> "quoted" & done'
    path = session(tmp_path, [text], answer)
    html = tmp_path / "evil.html"
    cli(capsys, "score", path, "--html", html)
    page = load(browser, html)
    assert page.eval("typeof window.pwned") == "undefined"
    assert page.eval("document.scripts.length") == 1  # the page's own
    assert page.eval("document.images.length") == 0
    assert page.eval("document.querySelector('#answer pre').textContent").replace("[2]", "") == answer
    assert page.eval("document.querySelector('#file-1').dataset.path") == evil_path
    assert evil_path in page.eval("document.querySelector('#file-1').textContent")
    # src/a.py (100 of 300 chars) is credited by its path.
    assert fields(page)["efficiency"][0][0] == pytest.approx(1 / 3)


def test_html_option_changes_no_other_output(tmp_path, capsys):
    for command in ("score", "explain"):
        for fmt in ([], ["--json"]):
            _, plain, _ = cli(capsys, command, SENDFILE, *fmt)
            _, with_html, _ = cli(capsys, command, SENDFILE, *fmt, "--html", tmp_path / f"{command}.html")
            assert with_html == plain


# ---------------------------------------------------------------- a sweep


def test_sweep_page_numbers_equal_the_json_lines(browser, tmp_path, capsys):
    out = tmp_path / "out"
    html = tmp_path / "sweep.html"
    code, _, _ = cli(capsys, "sweep", BASE, "--ruleset", "default", "--ruleset", "lines", "--html", html,
                     "--out", out, "-q", "-j1")
    assert code == 1  # two sessions not scored
    _, lines, _ = cli(capsys, "sweep", BASE, "--ruleset", "default", "--ruleset", "lines", "--json", "-q", "-j1")
    records = [json.loads(line) for line in lines.splitlines()]
    assert (out / "report.html").read_bytes() == html.read_bytes()
    page = load(browser, html)
    assert page.eval("document.body.dataset.page") == "sweep"

    slices = page.eval("""Array.from(document.querySelectorAll('tr[data-slice]')).map(function (tr) {
        var row = {ruleset: tr.dataset.ruleset, slice: tr.dataset.slice};
        tr.querySelectorAll('[data-field]').forEach(function (td) { row[td.dataset.field] = JSON.parse(td.dataset.value); });
        return row; })""")
    expected = [r for r in records if r["record"] == "slice"]
    keys = ("n", "pooled", "median", "p25", "p75", "min", "path_only_pooled", "calls", "call_median", "call_p25", "not_scored")
    assert slices == [{"ruleset": r["ruleset"], "slice": r["slice"], **{k: r[k] for k in keys}} for r in expected]
    # The cells read as the text table's columns, row by row.
    _, text, _ = cli(capsys, "sweep", BASE, "--ruleset", "default", "--ruleset", "lines", "-q", "-j1")
    tables = text.split("Residual context occupancy (CG-7)")[0]  # the slice tables, not the occupancy block after them
    text_rows = [line.split() for line in tables.splitlines() if line.split()[:1] in (["all"], ["single-question"], ["multi-turn"])]
    cells = page.eval("""Array.from(document.querySelectorAll('tr[data-slice]')).map(function (tr) {
        return Array.from(tr.cells).slice(0, 11).map(function (c) { return c.textContent; }); })""")
    assert cells == text_rows
    # Hand-worked (test_sweep.py): all n 5, median 0.6, p25 0.3, min 0.25.
    all_default = slices[0]
    assert (all_default["n"], all_default["median"], all_default["p25"], all_default["min"]) == (5, 0.6, 0.3, 0.25)

    sessions = page.eval("""Array.from(document.querySelectorAll('#ruleset-0 table.sessions tbody tr')).map(function (tr) {
        return [tr.dataset.session, tr.cells[1].textContent,
                JSON.parse(tr.querySelector('[data-field=efficiency]').dataset.value),
                JSON.parse(tr.querySelector('[data-field=envelope]').dataset.value),
                JSON.parse(tr.querySelector('[data-field=warnings]').dataset.value)]; })""")
    rows = [r for r in records if r["record"] == "session" and r["ruleset"] == "default"]
    mark = {True: "✓ scored", False: "✗ not scored"}
    assert sessions == [[r["session"], mark[r["status"] == "scored"] + " " + r["status"], r["efficiency"], r["envelope"],
                         r["warnings"]] for r in rows]
    assert [s[4] for s in sessions] == [0, 0, 0, 2, 0, 0, 0]  # beta/r1's second segment reuses a tool_use id

    # Session efficiencies 0.6 0.3 1.0 0.9 0.25 in 10-point bins; calls 0.6 0.3 1.0 0.8 1.0 0.25.
    counts = page.eval("""['hist-0-sessions', 'hist-0-calls'].map(function (id) {
        return Array.from(document.querySelectorAll('[data-chart=' + id + '] rect')).map(function (r) {
            return +r.dataset.count; }); })""")
    assert counts == [[0, 0, 1, 1, 0, 0, 1, 0, 0, 2], [0, 0, 1, 1, 0, 0, 1, 0, 1, 2]]

    unscored = page.eval("Array.from(document.querySelectorAll('#not-scored li')).map(function (li) { return li.dataset.status; })")
    assert unscored == ["no-explore", "no-explore", "no-answer", "no-answer"]  # one per ruleset

    # Each session links to its own collapsed section, which the link opens.
    link = page.eval("document.querySelector('#ruleset-0 table.sessions tbody tr:nth-child(4) a').getAttribute('href')")
    assert page.eval(f"document.querySelector('{link}').open") is False
    page.eval(f"location.hash = '{link}'")
    assert page.eval(f"document.querySelector('{link}').open") is True
    assert "beta/r1.jsonl" in page.eval(f"document.querySelector('{link} summary').textContent")


def test_sweep_page_pools_occupancy_as_the_json_records_and_the_text_block(browser, tmp_path, capsys):
    passes = Path(__file__).parent.parent / "fixtures" / "pass"
    html = tmp_path / "sweep.html"
    cli(capsys, "sweep", passes, "--html", html, "-q", "-j1")
    _, lines, _ = cli(capsys, "sweep", passes, "--json", "-q", "-j1")
    records = [r for r in map(json.loads, lines.splitlines()) if r["record"] == "pooled-occupancy"]
    assert len(records) > 3 and any(r["arm"] == "baseline" for r in records)  # slices and arms
    page = load(browser, html)
    shown = fields(page, "document.querySelector('#occupancy')")
    for r in records:
        key = f'{r["slice"]}.{r["arm"]}.'
        assert [v for v, _ in shown[key + "sessions"]] == [r["sessions"]]
        for name in ("final_context", "retrieval", "retrieval_share"):
            assert [v for v, _ in shown[key + name]] == [r[name]], key + name
    assert len(shown) == 4 * len(records)
    # The cells read as the text block's rows, in its order.
    _, text, _ = cli(capsys, "sweep", passes, "-q", "-j1")
    block = text.split("Residual context occupancy (CG-7), pooled per slice and arm")[1].splitlines()[2:2 + len(records)]
    cells = page.eval("""Array.from(document.querySelectorAll('#occupancy tbody tr')).map(function (tr) {
        return Array.from(tr.cells).map(function (c) { return c.textContent; }).join(' '); })""")
    assert [" ".join(c.split()) for c in cells] == [" ".join(line.split()) for line in block]
    assert page.eval("!!document.querySelector('nav a[href=\"#occupancy\"]')")


def test_a_sweep_whose_sessions_log_no_prompt_sizes_has_no_occupancy_table(tmp_path, capsys):
    html = tmp_path / "sweep.html"
    cli(capsys, "sweep", Path(__file__).parent.parent / "fixtures" / "codex", "--html", html, "-q", "-j1")
    assert 'id="occupancy"' not in html.read_text() and html.read_text().count("<h2>") > 0


# ---------------------------------------------------------------- a comparison


def test_compare_page_numbers_equal_the_json_lines(browser, tmp_path, capsys):
    html = tmp_path / "compare.html"
    out = tmp_path / "cmp"
    cli(capsys, "compare", BASE, NEW, "--html", html, "--out", out, "-q", "-j1")
    _, lines, _ = cli(capsys, "compare", BASE, NEW, "--json", "-q", "-j1")
    records = [json.loads(line) for line in lines.splitlines()]
    assert (out / "report.html").read_bytes() == html.read_bytes()
    page = load(browser, html)
    assert page.eval("document.body.dataset.page") == "compare"

    groups = page.eval("""Array.from(document.querySelectorAll('table.groups tbody tr')).map(function (tr) {
        var row = {group: tr.dataset.group};
        tr.querySelectorAll('[data-field]').forEach(function (el) { row[el.dataset.field] = JSON.parse(el.dataset.value); });
        return row; })""")
    keys = ("base_median", "new_median", "difference", "base_n", "base_runs", "new_n", "new_runs",
            "base_not_scored", "new_not_scored")
    expected = [r for r in records if r["record"] == "group"]
    assert groups == [
        {"group": r["group"], **{k: r[k] for k in keys},
         "ci": None if r["ci_low"] is None else [r["ci_low"], r["ci_high"]]} for r in expected
    ]
    # The cells read as the text output's: runs, medians, difference and interval, group by group.
    _, text, _ = cli(capsys, "compare", BASE, NEW, "-q", "-j1")
    text_lines = {line.split()[0]: line for line in text.splitlines()[1:7] if line.strip()}
    shown = page.eval("""Array.from(document.querySelectorAll('table.groups tbody tr')).map(function (tr) {
        return [tr.dataset.group].concat([6, 8, 1, 2, 3, 4].map(function (i) { return tr.cells[i].textContent; })); })""")
    for group, base_runs, new_runs, base_med, new_med, diff, ci in shown:
        expected = "  ".join([group, base_runs, new_runs, base_med, new_med, diff, ci])
        assert text_lines[group].split() == expected.split()
    # Hand-worked (test_compare.py): alpha base runs 0.6 0.3 1.0, new 0.8 0.7 0.9; medians 0.6 and 0.8.
    alpha = groups[0]
    assert (alpha["group"], alpha["base_runs"], alpha["new_runs"]) == ("alpha", [0.6, 0.3, 1.0], [0.8, 0.7, 0.9])
    assert alpha["difference"] == pytest.approx(0.2)

    moved = page.eval("""Array.from(document.querySelectorAll('#files tbody tr')).map(function (tr) {
        return [tr.dataset.group, tr.dataset.path, JSON.parse(tr.querySelector('[data-field=delta]').dataset.value)]; })""")
    assert moved == [[r["group"], r["path"], r["delta"]] for r in records if r["record"] == "file"]
    assert page.eval("document.querySelectorAll('#plot svg').length") == 1
    assert page.eval("document.querySelectorAll('#not-compared li').length") == 2
    # Each side named as the rest of the page names it ("baseline", not the JSON's "base").
    sides = page.eval("Array.from(document.querySelectorAll('#not-compared li')).map(function (li) {"
                      " return [li.dataset.side, li.querySelector('.side').textContent]; })")
    assert sorted(sides) == sorted([[u["side"], {"base": "baseline", "new": "new"}[u["side"]]]
                                    for u in records if u["record"] == "unscored"])
    assert any(side == "base" for side, _ in sides)


# ---------------------------------------------------------------- beyond the reference, and edge cases


def test_line_level_and_ladder_are_on_the_page(browser, tmp_path, capsys):
    fixture = REAL / "stream" / "express-res-send.jsonl"
    html = tmp_path / "lines.html"
    cli(capsys, "score", "--ruleset", "lines", fixture, "--html", html)
    _, out_json, _ = cli(capsys, "score", "--ruleset", "lines", fixture, "--json")
    data = json.loads(out_json)
    page = load(browser, html)
    summary = fields(page)
    # README: line-level 17.4%, 2,222 of 12,750 chars; pinned alone 8.5%; ladder path ... +quote 76.2%.
    assert summary["line_efficiency"][0] == [data["line_level"]["efficiency"], "17.4%"]
    assert summary["line_used"][0] == [2222, "2,222"]
    assert summary["line_pinned_efficiency"][0][1] == "8.5%"
    assert [v for v, _ in summary["ladder"]] == [step["efficiency"] for step in data["ladder"]]
    assert [t for _, t in summary["ladder"]] == ["76.2%"] * 4
    line_cells = page.eval("Array.from(document.querySelectorAll('#files [data-field=line_used]')).map(function (c) { return JSON.parse(c.dataset.value); })")
    assert line_cells == [f["line_used"] for f in data["files"]]


def test_session_without_explore_or_answer_still_makes_a_page(browser, tmp_path, capsys):
    no_explore = REAL / "stream" / "express-no-explore.jsonl"
    html = tmp_path / "none.html"
    code, _, _ = cli(capsys, "explain", no_explore, "--html", html)
    page = load(browser, html)
    assert page.eval("document.querySelector('p[data-field=status]').dataset.value") == '"no-explore"'
    assert page.eval("document.querySelectorAll('.call').length") == 0

    text = response(section("src/a.py", size=100))
    path = session(tmp_path, [text], None)  # no result event: no answer
    html = tmp_path / "noanswer.html"
    cli(capsys, "score", path, "--html", html)
    page = load(browser, html)
    assert page.eval("document.querySelector('[role=alert]').textContent").startswith("No final answer text found")
    assert fields(page)["status"][0][0] == "no-answer"


def test_pages_read_with_javascript_off_and_without_colour(browser, tmp_path, capsys):
    html = tmp_path / "score.html"
    cli(capsys, "score", SENDFILE, "--html", html)
    page = browser.open(html, javascript=False)
    assert page.problems() == []
    # Every file row is there, in the text output's order, each verdict marked by a symbol.
    marks = page.eval("""Array.from(document.querySelectorAll('#files tbody tr')).map(function (tr) {
        return [tr.dataset.path, tr.querySelector('.mark').firstChild.textContent]; })""")
    assert marks == [["lib/response.js", "✓"], ["lib/router/index.js", "✗"], ["lib/application.js", "✓"],
                     ["lib/utils.js", "✓"], ["lib/router/layer.js", "✗"]]
    # Sorting is an enhancement: with scripts off no heading was made sortable.
    assert page.eval("document.querySelectorAll('th[aria-sort]').length") == 0
    page.close()
    page = browser.open(html)
    assert page.eval("document.querySelectorAll('#files th[aria-sort]').length") == 9
    # Sorting by chars ascending puts the smallest file first.
    page.eval("document.querySelectorAll('#files th')[3].click()")
    assert page.eval("document.querySelector('#files tbody tr').dataset.path") == "lib/router/layer.js"


def test_ci_installs_the_browser_before_running_the_readmes_test_command():
    repo = Path(__file__).resolve().parent.parent.parent
    steps = [line.strip() for line in (repo / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.strip().startswith("#")]
    readme = (repo / "README.md").read_text()
    test_command = ".venv/bin/python -m pytest"
    assert steps[-1] == test_command and f"    {test_command}\n" in readme
    install = next(i for i, s in enumerate(steps) if "apt-get install" in s and "chromium" in s)
    assert install < len(steps) - 1
    assert "command -v chromium" in " ".join(steps[:install])  # only when missing
    assert "chromium" in readme and "apt-get install -y chromium" in readme


def test_a_missing_browser_fails_saying_how_to_install_it(monkeypatch):
    import browser as browser_module

    monkeypatch.setattr(browser_module.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match=r"apt-get update && apt-get install -y chromium"):
        chromium_path()


# ---------------------------------------------------------------- sensitivity


def test_sensitivity_page_numbers_equal_the_json_lines(browser, tmp_path, capsys):
    html = tmp_path / "sens.html"
    argv = ["sensitivity", BASE, "--rulesets", "path-only", "corrected", "-q", "-j1"]
    _, text, _ = cli(capsys, *argv, "--html", html)
    _, lines, _ = cli(capsys, *argv, "--json")
    rows = [r for r in map(json.loads, lines.splitlines()) if r["record"] == "row"]
    page = load(browser, html)
    got = page.eval("""Array.from(document.querySelectorAll('tr[data-slice]')).map(function (tr) {
        var row = {ruleset: tr.dataset.ruleset, slice: tr.dataset.slice};
        tr.querySelectorAll('[data-field]').forEach(function (td) { row[td.dataset.field] = JSON.parse(td.dataset.value); });
        return row; })""")
    keys = ("n", "pooled", "median", "p25")
    deltas = ("delta_pooled", "delta_median", "delta_p25", "paired", "dropped", "changed")
    assert got == [
        {"ruleset": r["ruleset"], "slice": r["slice"], **{k: r[k] for k in keys},
         **({} if r["ruleset"] == "default" else {k: r[k] for k in deltas})} for r in rows
    ]
    # Cell by cell, the text table's row.
    cells = page.eval("""Array.from(document.querySelectorAll('tr[data-slice]')).map(function (tr) {
        return Array.from(tr.cells).map(function (c) { return c.textContent; }).filter(function (t) { return t; }); })""")
    text_rows = [line.split() for line in text.splitlines()[3:12]]
    assert cells == text_rows
    # path-only loses alpha/r3's symbol credit: all pooled 3950 -> 3450 of 6000 chars (test_sweep.py's corpus).
    assert got[3]["pooled"] == pytest.approx(3450 / 6000)
    assert page.eval("document.querySelectorAll('#plot svg').length") == 1


def test_trailing_blocks_are_a_striped_segment_of_their_call(browser, tmp_path, capsys):
    # Under corrected, fastify-killed's response ends in a 371-char guidance block charged to no file.
    fixture = REAL / "stream" / "fastify-killed.jsonl"
    html = tmp_path / "meta.html"
    cli(capsys, "score", "--ruleset", "corrected", fixture, "--html", html)
    _, out_json, _ = cli(capsys, "score", "--ruleset", "corrected", fixture, "--json")
    assert json.loads(out_json)["meta_chars"] == 371
    page = load(browser, html)
    assert page.eval("Array.from(document.querySelectorAll('.bar .meta')).map(function (s) { return s.title; })") == [
        "trailing blocks, 371 chars"]
    assert fields(page)["meta_chars"][0] == [371, "371"]


def test_compare_arms_page_has_the_harness_view_and_the_arm_labels(browser, tmp_path, capsys):
    pass_dir = Path(__file__).parent.parent / "fixtures" / "pass"
    html = tmp_path / "ab.html"
    argv = ["compare", pass_dir, "--arms", "baseline", "new", "-q", "-j1"]
    _, text, _ = cli(capsys, *argv, "--html", html)
    _, lines, _ = cli(capsys, *argv, "--json")
    groups = [r for r in map(json.loads, lines.splitlines()) if r["record"] == "group" and r["group"] != "(all)"]
    page = load(browser, html)
    heads = page.eval("Array.from(document.querySelectorAll('table.groups thead th')).map(function (th) { return th.textContent; })")
    assert heads[5:7] == ["baseline n", "baseline runs (%)"] and heads[7:9] == ["new n", "new runs (%)"]
    harness = page.eval("""Array.from(document.querySelectorAll('#harness tbody tr')).map(function (tr) {
        var c = tr.querySelector('[data-field]');
        return [tr.dataset.group, tr.cells[1].textContent, JSON.parse(c.dataset.value), c.textContent, tr.cells[3].textContent]; })""")
    assert [(g, arm, value) for g, arm, value, _, _ in harness] == [
        (g["group"], arm, g[f"{side}_pooled"]) for g in groups for side, arm in (("base", "baseline"), ("new", "new"))
    ]
    # Each line reads as the text's harness view (tests/fixtures/pass/README.md derives these by hand).
    for group, arm, _, pooled, spread in harness:
        assert f"{arm:<8}  pooled efficiency  {pooled:>6}   per-run efficiency  {spread}" in text
    assert harness[0][3:] == ["62.8%", "51.6% [17.9%–95.1%]"]
    assert page.eval("document.querySelectorAll('#other-arms li').length") == 3
    # The not-compared list names an arm by its label, as the headings do.
    assert page.eval("Array.from(document.querySelectorAll('#not-compared li')).map(function (li) {"
                     " return li.querySelector('.side').textContent + ' ' + li.dataset.status; })") == ["baseline no-answer"]


DIAG_JS = """(function (arm) {
  var sec = document.querySelector('#diagnostics section.diagnostics[data-arm="' + arm + '"]');
  function rows(cls, key) {
    return Array.from(sec.querySelectorAll('table.' + cls + ' tbody tr')).map(function (tr) {
      var row = {}, shown = [];
      if (key) { row[key] = tr.dataset[key]; shown.push(tr.cells[0].textContent); }
      tr.querySelectorAll('[data-field]').forEach(function (el) {
        row[el.dataset.field] = JSON.parse(el.dataset.value); shown.push(el.textContent); });
      return [row, shown];
    });
  }
  var head = {};
  sec.querySelectorAll(':scope > p [data-field]').forEach(function (el) {
    head[el.dataset.field] = [JSON.parse(el.dataset.value), el.textContent]; });
  return {
    title: sec.querySelector('h3').textContent, head: head,
    by_render: rows('by_render', 'render'), by_flag: rows('by_flag', 'flag'), by_rank: rows('by_rank', null),
    relevance: rows('relevance', 'cited'),
    cited: Array.from(sec.querySelectorAll('ul.cited-anyway li')).map(function (li) {
      return [li.dataset.session, li.dataset.call, li.dataset.path, li.textContent]; })
  };
})(%s)"""


def test_compare_arms_page_shows_each_arms_diagnostics_as_the_json_and_text_do(browser, tmp_path, capsys):
    pass_dir = Path(__file__).parent.parent / "fixtures" / "pass"
    html = tmp_path / "ab.html"
    argv = ["compare", pass_dir, "--arms", "baseline", "new", "-q", "-j1"]
    _, text, _ = cli(capsys, *argv, "--html", html)
    _, lines, _ = cli(capsys, *argv, "--json")
    records = [json.loads(line) for line in lines.splitlines()]
    summaries = [r for r in records if r["record"] == "diagnostics"]
    assert [s["arm"] for s in summaries] == ["baseline", "new"]
    page = load(browser, html)
    blocks = text.split("\nDiagnostics — arm ")[1:]
    assert len(blocks) == 2
    for summary, block in zip(summaries, blocks):
        arm = summary["arm"]
        shown = page.eval(DIAG_JS % json.dumps(arm))
        assert shown["title"] == f"Diagnostics — arm {arm}"
        # The numbers are the JSON record's, every one of them.
        assert {k: v for k, (v, _) in shown["head"].items()} == {
            "matched": summary["matched"], "responses": summary["responses"], "sessions": summary["sessions"],
            "spearman": summary["relevance"]["spearman"], "files": summary["relevance"]["files"],
            "never_rendered_cited": len(summary["never_rendered_cited"]),
        }
        assert [row for row, _ in shown["by_render"]] == summary["by_render"]
        assert [row for row, _ in shown["by_flag"]] == summary["by_flag"]
        assert [row for row, _ in shown["by_rank"]] == summary["by_rank"]
        rel = summary["relevance"]
        assert [row for row, _ in shown["relevance"]] == [
            {"cited": side, **{k: rel[k] for k in rel if k.startswith(side + "_")}} for side in ("cited", "uncited")
        ]
        assert [c[:3] for c in shown["cited"]] == [
            [r["session"], str(r["call"]), r["path"]] for r in summary["never_rendered_cited"]
        ]
        # And the cells read as the text's lines of the same arm's block.
        assert block.startswith(f"{arm}: {shown['head']['matched'][1]}/{shown['head']['responses'][1]} response(s) "
                                f"matched over {shown['head']['sessions'][1]} session(s)")
        for _, (name, uf, files, uc, chars, share) in shown["by_render"] + shown["by_flag"]:
            assert f"    {name:<14} {uf:>3}/{files:<3} files  {uc:>8} of {chars:>8} chars uncited ({share})\n" in block
        for _, (rank, cited, rendered, rate, ranked, never) in shown["by_rank"]:
            extra = f", {never} never rendered but cited" if never != "0" else ""
            assert f"    rank {rank:>2}: {cited}/{rendered} cited ({rate}), {ranked} ranked{extra}\n" in block
        assert f"Spearman(score share, envelope share) = {shown['head']['spearman'][1]} over" in block
        for session, call, path, line in shown["cited"]:
            assert f"    {line}\n" in block
    # Hand-checked against tests/fixtures/pass: 20 of 20 baseline responses joined, 1 cited anyway.
    assert (summaries[0]["matched"], summaries[0]["responses"], len(summaries[0]["never_rendered_cited"])) == (20, 20, 1)
    # What the text says once, after the arms: the sidecars (all of them) and the sessions without one.
    sidecars = page.eval("Array.from(document.querySelectorAll('#diagnostics > ul.paths:last-of-type li')).map("
                         "function (li) { return li.textContent; })")
    assert sidecars == summaries[0]["sidecars"] and len(sidecars) == 5
    without = page.eval("JSON.parse(document.querySelector('#diagnostics [data-field=sessions_without_sidecar]')"
                        ".dataset.value)")
    assert without == summaries[0]["sessions_without_sidecar"] == {"baseline": 4}
    assert "sessions without a diagnostic sidecar (not joined): 4 of arm baseline" in text


def test_compare_page_without_sidecars_has_no_diagnostics_section(browser, tmp_path, capsys):
    html = tmp_path / "compare.html"
    cli(capsys, "compare", BASE, NEW, "--html", html, "-q", "-j1")
    page = load(browser, html)
    assert page.eval("document.querySelectorAll('#diagnostics').length") == 0
