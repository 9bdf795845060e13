"""Issue 22: every call record carries the explore query the agent asked (score/explain --json,
explain's text, the session and sweep pages, sweep's sessions.csv), while score's text block stays
the reference's."""

import csv
import json
from pathlib import Path

from builders import EXPLORE, answer_to, explored, response, section, use, write_jsonl

from citeledger.cli import main

HERE = Path(__file__).parent.parent
EXPRESS = HERE / "fixtures" / "real" / "stream" / "express-sendfile-2calls.jsonl"


def asked_queries(path: Path) -> list:
    """The input.query of each explore tool_use in the file, read with json alone."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        content = (event.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "tool_use" and block.get("name", "").endswith("codegraph_explore"):
                out.append(block["input"]["query"])
    return out


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_score_json_gives_each_call_the_query_its_tool_use_asked(capsys):
    code, out, _ = run(capsys, "score", EXPRESS, "--json")
    assert code == 0
    calls = json.loads(out)["calls"]
    assert [c["query"] for c in calls] == asked_queries(EXPRESS)
    assert len(calls) == 2


def test_score_text_keeps_the_reference_block_without_queries(capsys):
    _, out, _ = run(capsys, "score", EXPRESS)
    for query in asked_queries(EXPRESS):
        assert query not in out


def test_a_response_without_sections_does_not_shift_the_queries(tmp_path, capsys):
    # The first response has no section (no call); call 1 is the second response and asked "second".
    events = (
        explored("t1", "first", "nothing found here")
        + explored("t2", "second", response(section("src/a.py", size=40)))
        + [use("t3", EXPLORE, {"limit": 3}), answer_to("t3", response(section("src/b.py", size=50)))]
        + [{"type": "result", "subtype": "success", "result": "See src/a.py."}]
    )
    path = write_jsonl(tmp_path / "s.jsonl", events)
    _, out, _ = run(capsys, "score", path, "--json")
    calls = json.loads(out)["calls"]
    assert [(c["call"], c["query"]) for c in calls] == [(1, "second"), (2, None)]
    _, text, _ = run(capsys, "explain", path)
    assert '    call 1  100.0% of 40 chars  "second"' in text
    assert "    call 2  0.0% of 50 chars  no query recorded" in text


def test_explain_cuts_a_long_query_as_the_sufficiency_block_does(tmp_path, capsys):
    long = "why " * 40
    events = explored("t1", long, response(section("src/a.py", size=40))) + [
        {"type": "result", "subtype": "success", "result": "src/a.py"}]
    path = write_jsonl(tmp_path / "s.jsonl", events)
    _, text, _ = run(capsys, "explain", path)
    assert '"' + long[:45] + '…"' in text
    _, out, _ = run(capsys, "explain", path, "--json")
    assert json.loads(out)["calls"][0]["query"] == long


def test_session_page_shows_each_calls_query(tmp_path, capsys):
    page = tmp_path / "s.html"
    run(capsys, "score", EXPRESS, "--html", page)
    html = page.read_text(encoding="utf-8")
    for query in asked_queries(EXPRESS):
        assert f'<p class="query">query: <q>{query}</q></p>' in html


def test_sweep_csv_and_page_carry_the_call_queries(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / EXPRESS.name).write_bytes(EXPRESS.read_bytes())
    code, _, _ = run(capsys, "sweep", folder, "--out", tmp_path / "out", "--html", tmp_path / "p.html", "-j1")
    assert code == 0
    with open(tmp_path / "out" / "sessions.csv", newline="", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert json.loads(row["call_queries"]) == asked_queries(EXPRESS)
    assert len(json.loads(row["call_efficiencies"])) == len(json.loads(row["call_queries"]))
    html = (tmp_path / "p.html").read_text(encoding="utf-8")
    for query in asked_queries(EXPRESS):
        assert f"<q>{query[:45]}" in html
