"""An envelope of meta alone (every Glob said "No files found") is unscored under any ruleset,
as a run with no explore section is under `default`: it never enters the medians as 0%."""

from __future__ import annotations

import json

from builders import answer_to, use, write_jsonl
from citeledger.cli import main


def glob_run(tmp_path, results):
    rows = [{"type": "system", "subtype": "init", "tools": ["Glob"]}]
    for i, text in enumerate(results, 1):
        rows += [use(f"toolu_{i}", "Glob", {"pattern": f"**/x{i}.js"}, message=f"msg_{i}"), answer_to(f"toolu_{i}", text)]
    rows.append({"type": "result", "subtype": "success", "result": "There is no such file in `lib/`."})
    return write_jsonl(tmp_path / "run.jsonl", rows)


def test_six_globs_that_found_nothing_are_not_scored_under_retrieval(tmp_path, capsys):
    run = glob_run(tmp_path, ["No files found"] * 6)
    status = main(["score", "--json", "--ruleset", "retrieval", str(run)])
    data = json.loads(capsys.readouterr().out)
    assert status == 1
    assert (data["status"], data["efficiency"], data["files_returned"]) == ("no-explore", None, 0)
    assert len(data["calls"]) == 6  # the calls are still listed, their meta charged to no file
    swept = main(["sweep", "-q", "-j", "1", "--json", "--ruleset", "retrieval", str(run)])
    rows = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    session = next(r for r in rows if r.get("record") == "session")
    assert swept == 1 and (session["status"], session["efficiency"]) == ("no-explore", None)


def test_one_glob_that_found_a_file_is_scored(tmp_path, capsys):
    run = glob_run(tmp_path, ["No files found", "lib/x2.js\n"])
    main(["score", "--json", "--ruleset", "retrieval", str(run)])
    data = json.loads(capsys.readouterr().out)
    assert (data["status"], data["files_returned"]) == ("scored", 1)
