"""Output a person can read on a real pass: warnings summarised, long lists capped, no fake 0.0."""

import csv
import json
from pathlib import Path

import pytest

from builders import events, response, section, write_jsonl
from citeledger.cli import main

HERE = Path(__file__).parent.parent
CORPUS = HERE / "fixtures" / "corpus"
CODEX = HERE / "fixtures" / "codex"


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_an_unscored_session_has_no_efficiency_in_json_or_csv(capsys, tmp_path):
    _, out, _ = cli(capsys, "sweep", str(CORPUS / "base"), "--json", "-q", "--out", str(tmp_path / "o"))
    rows = {r["session"]: r for r in map(json.loads, out.splitlines()) if r["record"] == "session"}
    assert rows["beta/r2.jsonl"]["status"] == "no-explore" and rows["beta/r2.jsonl"]["efficiency"] is None
    assert rows["gamma/r1.jsonl"]["status"] == "no-answer" and rows["gamma/r1.jsonl"]["path_only"] is None
    assert rows["alpha/r1.jsonl"]["efficiency"] == pytest.approx(0.6)
    with open(tmp_path / "o" / "sessions.csv", newline="") as fh:
        table = {r["session"]: r for r in csv.DictReader(fh)}
    assert table["gamma/r1.jsonl"]["efficiency"] == "" and table["beta/r2.jsonl"]["path_only"] == ""
    assert float(table["alpha/r1.jsonl"]["efficiency"]) == pytest.approx(0.6)


def test_many_warnings_are_summarised_by_kind_and_all_kept_in_json(capsys, tmp_path):
    rows = events([response(section("src/a.py", size=100))], "src/a.py")
    write_jsonl(tmp_path / "run.jsonl", rows[:2] + ["{not json"] * 30 + rows[2:])
    code, out, err = cli(capsys, "sweep", str(tmp_path), "--json", "-q")
    assert code == 1
    lines = err.splitlines()
    assert lines[0] == "citeledger: 30 input warnings of 1 kind (every one is in --json and --out):"
    assert lines[1].startswith("citeledger: warning: 30 × not JSON (truncated), skipped — ")
    assert lines[1].endswith(f"{tmp_path}/run.jsonl:3, {tmp_path}/run.jsonl:4, {tmp_path}/run.jsonl:5 …+27")
    assert len(lines) == 2
    assert sum(json.loads(line)["record"] == "warning" for line in out.splitlines()) == 30


def test_a_few_warnings_are_each_listed(capsys, tmp_path):
    rows = events([response(section("src/a.py", size=100))], "src/a.py")
    write_jsonl(tmp_path / "run.jsonl", rows[:2] + ["{not json"] * 2 + rows[2:])
    _, _, err = cli(capsys, "sweep", str(tmp_path), "-q")
    assert err.splitlines() == [
        f"citeledger: warning: {tmp_path}/run.jsonl:{n}: not JSON (truncated), skipped" for n in (3, 4)]


def test_a_long_not_scored_list_is_capped_in_text(capsys, tmp_path):
    for i in range(25):
        write_jsonl(tmp_path / f"r{i:02}.jsonl", events([], "nothing explored"))
    write_jsonl(tmp_path / "scored.jsonl", events([response(section("src/a.py", size=100))], "src/a.py"))
    code, out, _ = cli(capsys, "sweep", str(tmp_path), "-q")
    assert "not scored (25):" in out
    assert out.count("  no-explore  ") == 20
    assert "  … and 5 more (5 no-explore; all in --json and --out)\n" in out
    _, out, _ = cli(capsys, "sweep", str(tmp_path), "-q", "--json")
    assert sum(json.loads(line).get("status") == "no-explore" for line in out.splitlines()) == 25


def test_a_mistyped_flag_prints_the_subcommands_usage(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(CORPUS / "base"), "--josn"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.startswith("usage: citeledger sweep ")
    assert "citeledger sweep: error: unrecognized arguments: --josn" in err


def test_sensitivity_writes_its_outputs_into_out(capsys, tmp_path):
    code, out, _ = cli(capsys, "sensitivity", str(CORPUS / "base"), "--rulesets", "corrected", "-q",
                       "--out", str(tmp_path / "s"))
    names = {p.name for p in (tmp_path / "s").iterdir()}
    assert names == {"sensitivity.jsonl", "rows.csv", "summary.txt", "sensitivity.png", "sensitivity.svg", "report.html"}
    assert (tmp_path / "s" / "summary.txt").read_text() == out
    with open(tmp_path / "s" / "rows.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["ruleset"], r["slice"]) for r in rows][:3] == [
        ("default", "all"), ("default", "single-question"), ("default", "multi-turn")]
    header = json.loads((tmp_path / "s" / "sensitivity.jsonl").read_text().splitlines()[0])
    assert header["plot"] == [str(tmp_path / "s" / "sensitivity.png"), str(tmp_path / "s" / "sensitivity.svg")]


def test_a_two_turn_codex_session_sweeps_as_two_turns(capsys):
    rollout = next(CODEX.glob("rollout-*.jsonl"))
    assert rollout.read_text().count('"turn_context"') == 2
    _, out, _ = cli(capsys, "sweep", str(CODEX), "--json", "-q")
    records = [json.loads(line) for line in out.splitlines()]
    (row,) = [r for r in records if r["record"] == "session"]
    assert row["reader"] == "codex" and row["turns"] == 2
    assert (records[0]["single_question"], records[0]["multi_turn"]) == (0, 1)


def _drawn(monkeypatch):
    """Make report.plot hand back its figure instead of rendering it."""
    import citeledger.report.plot as plot

    monkeypatch.setattr(plot, "images", lambda fig: fig)
    return plot


def test_a_zero_delta_bar_is_still_drawn(monkeypatch):
    plot = _drawn(monkeypatch)
    rows = [{"ruleset": r, "slice": s, "delta_pooled": d}
            for r, d in (("default", 0.0), ("other", 0.0)) for s in ("all", "single-question", "multi-turn")]
    fig = plot.delta_plot(["default", "other"], rows, [[], [0.0, 0.0]], "default")
    ax = fig.axes[0]
    ticks = [ln for ln in ax.lines if list(ln.get_ydata()) == [0, 0] and ln.get_linewidth() >= 4]
    assert len(ticks) == 3  # one per slice, though every bar has height 0
    low, high = ax.get_ylim()
    assert low < 0 < high  # and 0 is not on the frame


def test_the_compare_plot_explains_medians_and_interval_and_wraps_its_title(monkeypatch):
    plot = _drawn(monkeypatch)
    title = "explore allocation efficiency per run (ruleset a-rather-long-ruleset-name vs another-long-one)"
    fig = plot.strip_plot([("ab-express", [[0.5, 0.6], [0.7, 0.8]])], ("baseline", "new"), title=title,
                          intervals=[(0.1, 0.3)])
    ax = fig.axes[0]
    assert "\n" in ax.get_title() and ax.get_title().replace("\n", " ") == title
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"baseline: one run", "baseline: median", "new: one run", "new: median"} <= set(labels)
    assert any("bootstrap interval" in label for label in labels)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ab-express"]


def test_warnings_of_one_kind_differ_only_in_values_files_and_numbers():
    from citeledger.cli.commands.common import warning_kind

    a = "tool_use id 'toolu_1' used again (first at runs/a.jsonl:2); its later results belong to this 'x'"
    b = "tool_use id 'toolu_9' used again (first at other/b.jsonl:40); its later results belong to this 'y'"
    assert warning_kind(a) == warning_kind(b) == "tool_use id … used again (first at …); its later results belong to this …"
    assert warning_kind("line longer than 67,108,864 bytes, skipped") == "line longer than N bytes, skipped"
    assert warning_kind("not JSON (truncated), skipped") != warning_kind("not JSON (Expecting value), skipped")


def test_the_warning_pattern_spells_out_pythons_white_space():
    import sys

    from citeledger.cli.commands.common import SPACE
    from citeledger.core import compile_linear

    space = compile_linear(f"[{SPACE}]")
    assert [c for c in range(sys.maxunicode + 1) if chr(c).isspace()] == [
        c for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF and space.fullmatch(chr(c))]


# What re made of a warning before the pattern moved to RE2: the oracle.
_OLD_VARYING = r"'[^']*'|\"[^\"]*\"|[^\s()]+\.jsonl(?::\d+)?|\d[\d,.]*"


@pytest.mark.parametrize("message", [
    "x.jsonl:3 and 'a\"b' \"c'd\" 1,2.3 (in/y.jsonl) \u00a0z.jsonl \u2003w.jsonl:\u0663",
    "function_call_output for unknown call_id 'a\\'b" + "c" * 300 + ".jsonl'",
])
def test_a_warnings_kind_is_what_re_made_of_it(message):
    import re

    from citeledger.cli.commands.common import warning_kind

    assert warning_kind(message) == re.sub(_OLD_VARYING, lambda m: "N" if m.group(0)[0].isdigit() else "…", message)


def test_a_warning_quoting_a_long_value_is_classified_in_linear_cpu_time():
    # On re, `[^\s()]+\.jsonl` tried every start in a word: quadratic in a long quoted id.
    from citeledger.cli.commands.common import warning_kind
    from cpu_time import grows_linearly

    def work(size):
        message = "unknown call_id 'a\\'" + "b" * size + "'"
        return lambda: [warning_kind(message) for _ in range(20)]

    linear, small, large = grows_linearly(work, 20_000, repeat=9)
    assert linear, (small, large)
