"""What the agent did next after each call of every retrieval source (issue 42), on
EnterpriseBench's real MCP and baseline arms in ../shared/transcripts (in place)."""

from __future__ import annotations

import json

from citeledger.cli import main
from public_transcripts import public

ARMS = ("public-c", "enterprisebench", "rryas-headline-v6")


def next_acts(capsys, arm, ruleset="retrieval"):
    main(["score", "--ruleset", ruleset, "--sufficiency", "--json",
          str(public(*ARMS, f"dep-traversal-002_{arm}", "agent_trace.jsonl"))])
    return json.loads(capsys.readouterr().out)


def test_each_sourcegraph_call_names_its_tool_and_what_came_next(capsys):
    data = next_acts(capsys, "mcp_only")
    found = data["next_acts"]
    assert len(found["calls"]) == 22  # every counted MCP call (the 18 empty searches are no call)
    assert found["by_tool"]["keyword_search"] == {"again": 5, "read_returned": 2, "read_missed": 0, "search": 3,
                                                  "sufficient": 0}
    last = found["calls"][-1]
    assert (last["tool"], last["next"], last["bucket"]) == ("read_file", "Write", "sufficient")  # then the report
    assert data["sufficiency"]["answered"] == 0  # the explore block is there, as before: no explore call


def test_a_shell_call_is_judged_by_what_its_next_command_does(capsys):
    found = next_acts(capsys, "baseline")["next_acts"]
    assert [(c["tool"], c["next"], c["bucket"]) for c in found["calls"]] == [
        ("Bash", "Bash search", "search"), ("Bash", "Bash search", "search"), ("Read", "Bash search", "search")]


def test_default_has_no_other_source_so_its_sufficiency_output_is_as_it_was(capsys):
    assert "next_acts" not in next_acts(capsys, "mcp_only", "default")
