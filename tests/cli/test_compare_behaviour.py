"""`compare` (without --harness) shows the arm table's behaviour, occupancy and contamination rows
beside its statistics, in text, JSON, CSV and HTML.

The rows are compare-arms.mjs's: the text block of each group is checked line
for line against `compare --harness` of the same pass (itself checked against
the oracle, tests/cli/test_compare_harness.py); the JSON, CSV and page against
the text and against figures worked out by hand from tests/harness_cases.py.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from harness_cases import write_case

from citeledger.cli import main

# arm -> (case, run file stem): "with" has a race and a CLI call that returned; "without" one that was
# blocked, a killed run and a run whose explore has no answer (not scored, but read and measured).
ARMS = {
    "with": (("basic", "run-with-1"), ("race", "run-with-2"), ("cli-returned", "run-with-3")),
    "without": (("cli-blocked", "run-without-1"), ("no-result", "run-without-2"), ("usage-mix", "run-without-3")),
}
HEADING = "behavior, occupancy and contamination as compare-arms.mjs prints them"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> str:
    cases, folder = tmp_path_factory.mktemp("cases"), tmp_path_factory.mktemp("pass") / "ab-built"
    folder.mkdir()
    for runs in ARMS.values():
        for case, stem in runs:
            (written,) = write_case(cases, case)
            shutil.copy(written, folder / f"{stem}.jsonl")
    return str(folder)


def run(capsys, *args) -> str:
    code = main(["compare", "-q", "--no-diagnostics", *args])
    out, err = capsys.readouterr()
    assert code in (0, 1), err  # 1: some runs are not scored (the blocked CLI run has no explore)
    return out


def block(text: str) -> list[str]:
    """compare's rows of its one group, their two-space indent inside the group taken off."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(HEADING)) + 2
    end = next(i for i in range(start, len(lines)) if lines[i] and not lines[i].startswith("    "))
    return [line[2:] for line in lines[start:end]]


def table(lines) -> dict:
    """label -> cells of the arm table's rows (a 38-character label column, then 24 per cell)."""
    return {line[:38].strip(): [line[i:i + 24].strip() for i in range(38, len(line), 24)]
            for line in lines if len(line) > 38 and (len(line) - 38) % 24 == 0 and not line.lstrip().startswith("!!")
            and all(line[i] == " " for i in range(38, len(line), 24))}


def harness_rows(text: str) -> list[str]:
    """The arm table's head, behaviour, occupancy and contamination lines (its sufficiency and
    allocation blocks and its footer left out)."""
    blocks = "\n".join(text.split("\n")[2:]).split("\n\n")
    kept = [b for b in blocks if not b.startswith(("  explore sufficiency", "  explore allocation", "  how to read"))]
    return "\n\n".join(kept).rstrip("\n").split("\n") + [""]


def test_text_rows_are_the_arm_tables_rows(built, capsys):
    ours = block(run(capsys, built, "--arms", "with", "without"))
    assert main(["compare", built, "--arms", "with", "without", "--harness"]) == 0
    assert ours == harness_rows(capsys.readouterr().out)


def test_text_rows_as_worked_by_hand(built, capsys):
    rows = table(block(run(capsys, built, "--arms", "with", "without")))
    assert rows["runs"] == ["3", "3"]  # every run read: the without-arm's unscored runs too
    assert rows["MCP cold-start race"] == ["1", "0"]
    assert rows["of which non-success"] == ["0", "1"]  # the killed run has no result event
    # basic: Read+Grep+explore; race: explore+Grep; cli: four Bash calls
    assert rows["Bash"] == ["0 [0–4]", "0 [0–4]"]
    assert rows["CLI calls that RETURNED output"] == ["1", "0"]
    assert rows["CLI attempts blocked"] == ["2", "2"]
    assert "    !! with reached codegraph through Bash — those runs are CONTAMINATED" in \
        run(capsys, built, "--arms", "with", "without").split("\n")


def groups(capsys, *args) -> dict:
    records = [json.loads(line) for line in run(capsys, *args, "--json").splitlines()]
    return {r["group"]: r for r in records if r["record"] == "group"}


def test_json_carries_the_rows_as_numbers(built, capsys):
    found = groups(capsys, built, "--arms", "with", "without")
    with_arm, without = found["ab-built"]["base_behaviour"], found["ab-built"]["new_behaviour"]
    assert (with_arm["measured"], with_arm["raced"], with_arm["cli_returned"], with_arm["cli_attempts"]) == (3, 1, 1, 2)
    assert with_arm["contaminated"] is True and without["contaminated"] is False
    assert without["non_success"] == 1
    assert with_arm["bash"] == {"median": 0, "min": 0, "max": 4}
    share = with_arm["retrieval_share"]  # a ratio, as the sweep's shares
    assert 0 <= share["min"] <= share["median"] <= share["max"] <= 1
    # (all) pools every group's runs: one group here, the same figures
    assert found["(all)"]["base_behaviour"] == with_arm


def test_json_medians_are_the_texts(built, capsys):
    found = groups(capsys, built, "--arms", "with", "without")["ab-built"]["base_behaviour"]
    rows = table(block(run(capsys, built, "--arms", "with", "without")))
    final = found["final_context"]
    assert rows["final context (tok)"][0] == f"{round(final['median']):,} [{final['min']:,}–{final['max']:,}]"


def test_csv_has_the_json_figures_flat(built, capsys):
    found = groups(capsys, built, "--arms", "with", "without")
    table = list(csv.DictReader(io.StringIO(run(capsys, built, "--arms", "with", "without", "--csv"))))
    row = next(r for r in table if r["group"] == "ab-built")
    figures = found["ab-built"]["new_behaviour"]
    assert row["new_measured"] == "3" and row["new_cli_attempts"] == "2" and row["new_contaminated"] == "False"
    for end in ("median", "min", "max"):
        assert float(row[f"new_final_context_{end}"]) == figures["final_context"][end]
        assert float(row[f"base_retrieval_share_{end}"]) == found["ab-built"]["base_behaviour"]["retrieval_share"][end]


def test_page_shows_the_texts_cells(built, capsys, tmp_path):
    page = tmp_path / "compare.html"
    text = run(capsys, built, "--arms", "with", "without", "--html", str(page))
    section = re.search(r'<section id="behaviour">.*?</section>', page.read_text()).group(0)
    cells = {html.unescape(m.group(1)): [html.unescape(c) for c in re.findall(r'<td class="num">([^<]*)</td>', m.group(2))]
             for m in re.finditer(r'<tr><th scope="row">([^<]*)</th>(.*?)</tr>', section)}
    rows = table(block(text))
    assert set(cells) == set(rows) - {""}  # but the head row of labels
    for label, shown in cells.items():
        assert shown == rows[label], label
    assert "with reached codegraph through Bash" in html.unescape(section)


def test_two_passes_and_their_sweep_outputs_give_the_same_rows(built, capsys, tmp_path):
    """BASELINE NEW as transcripts, and as the sweep outputs made of them (their rows carry the
    run and occupancy columns): the same figures."""
    base, new = tmp_path / "base", tmp_path / "new"
    base.mkdir(), new.mkdir()
    for name in Path(built).iterdir():
        shutil.copy(name, (base if "with-" in name.name else new) / name.name.replace("without", "x").replace("with", "x"))
    direct = groups(capsys, str(base), str(new))
    for side in (base, new):
        assert main(["sweep", "-q", "--no-diagnostics", str(side), "--out", str(tmp_path / f"{side.name}-out")]) in (0, 1)
    capsys.readouterr()
    swept = groups(capsys, str(tmp_path / "base-out"), str(tmp_path / "new-out"))
    assert direct["(all)"]["base_behaviour"]["measured"] == 3
    for side in ("base_behaviour", "new_behaviour"):
        assert swept["(all)"][side] == direct["(all)"][side]
