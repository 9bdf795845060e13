"""opencode's session export (`opencode export`), read as FACTS.md §15 reads it by hand:
../shared/transcripts/public-c/pfm-categorization/opencode-session.json, in place (issue 41).
The grep part and the unfinished call are hand-made: the real export has neither (said so)."""

from __future__ import annotations

import json

import citeledger
from citeledger.cli import main
from public_transcripts import calls_by_source, files, public, scored, swept

EXPORT = "public-c/pfm-categorization/opencode-session.json"
ROOT = "/home/italo/Documentos/git/AI/pfm-categorization/"
WEBAPI = "src/Pfm.Categorization.WebApi/"


def session_scope(tmp_path):
    rules = tmp_path / "session.yaml"
    rules.write_text("extends: retrieval\nname: retrieval-session\nanswer:\n  scope: session\n")
    return rules


def test_an_opencode_export_is_read_with_its_five_prompts_and_its_reads():
    (record,) = swept(EXPORT)
    assert record["turns"] == 5 and record["agent"] == "opencode"
    score = scored(EXPORT)
    assert calls_by_source(score) == {"read": 16, "bash_read": 2}
    assert score.envelope == 156_148  # FACTS: builtin:read 147,774 + shell:read 8,374, to the char


def test_judged_on_the_last_answer_it_gives_the_facts_files_figure(tmp_path):
    score = citeledger.score(public(*EXPORT.split("/")), session_scope(tmp_path)).score
    assert (score.envelope, score.used) == (156_148, 47_979)  # FACTS: 30.7%
    assert len(score.answer) == 40_275  # the last text part of the last assistant message


def test_a_bash_script_of_echo_markers_and_a_variable_is_split_per_file():
    # `D=...; echo "--- csproj ---"; cat "$D/...csproj"; ...; cat "$D/Program.cs"; echo; ls ...`:
    # Program.cs has no last newline, so the `--- controllers ---` marker and the listing after
    # it are Program.cs's (FACTS: 809).
    chars = files(scored(EXPORT))
    assert [chars[WEBAPI + name] for name in ("Pfm.Categorization.WebApi.csproj", "Program.cs", "Dockerfile",
                                              "appsettings.json")] == [647, 809, 685, 142]
    assert chars["PfmCategorization.sln"] == 2_833 and chars["model.sql"] == 1_190  # `ls; echo; cat; ...; head -40`


def test_a_grep_part_is_cut_per_file_and_an_unfinished_call_is_said(tmp_path, capsys):
    """Hand-made (the real export has no grep part and no unfinished call): opencode's grep
    output as its tool prints it, `Found N matches` then `/path:` and `  Line N:` lines."""
    found = "Found 3 matches\n/p/src/a.ts:\n  Line 1: import x\n  Line 9: x()\n\n/p/src/b.ts:\n  Line 2: y\n"

    def tool(name, call, status, given, output=None):
        state = {"status": status, "input": given}
        if output is not None:
            state["output"] = output
        return {"type": "tool", "tool": name, "callID": call, "state": state, "id": "prt_" + call}

    doc = {"info": {"id": "ses_x", "directory": "/p", "time": {"created": 1783841008089}},
           "messages": [
               {"info": {"role": "user", "id": "msg_1"}, "parts": [{"type": "text", "text": "where is x?", "id": "prt_u"}]},
               {"info": {"role": "assistant", "id": "msg_2", "path": {"cwd": "/p"}}, "parts": [
                   tool("grep", "c1", "completed", {"pattern": "x", "path": "/p"}, found),
                   tool("grep", "c2", "completed", {"pattern": "zz"}, "No files found"),
                   tool("read", "c3", "running", {"filePath": "/p/src/c.ts"}),
                   {"type": "text", "text": "x is in src/a.ts.", "id": "prt_t"}]}]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc, indent=2))
    main(["score", "--ruleset", "retrieval", "--json", str(path)])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert {f["path"]: f["chars"] for f in data["files"]} == {
        "src/a.ts": len("/p/src/a.ts:\n  Line 1: import x\n  Line 9: x()\n\n"), "src/b.ts": len("/p/src/b.ts:\n  Line 2: y\n")}
    assert data["meta_chars"] == len("Found 3 matches\n") and len(data["calls"]) == 1  # "No files found": no call
    assert data["used"] == len("/p/src/a.ts:\n  Line 1: import x\n  Line 9: x()\n\n")
    assert "read call 'c3' with no result (the log ends before it returned, or lost it): not counted" in err
