"""Run basics (metrics/run.py) and the harness's tool rules (harness/tools.py), worked by hand."""

from __future__ import annotations

import pytest

from harness_cases import write_case

from citeledger.core import MetricOptions, metrics, readers, runs_codegraph_cli, tool_family
from citeledger.metrics.run import RunMetric


def measure(tmp_path, case):
    transcript = readers()["claude-stream"]().read(write_case(tmp_path, case))
    return RunMetric().measure(transcript, MetricOptions())


def test_registered_as_a_metric_plugin():
    assert metrics()["run"] is RunMetric


@pytest.mark.parametrize("command", [
    "codegraph explore 'listen'", "cd /repo && codegraph status", "FOO=1 BAR=x ./node_modules/.bin/codegraph query x",
    "ls; codegraph", "echo $(codegraph files)", "echo `codegraph q`", "true || ~/bin/codegraph sync", "(codegraph a)",
    "a | codegraph x", "a & codegraph\tx",
])
def test_a_cli_invocation(command):
    assert runs_codegraph_cli(command)


@pytest.mark.parametrize("command", [
    "grep codegraph src/", "ls .codegraph", "which codegraph", "cat codegraph.json", "echo codegraph-cli",
    "npx codegraphx run", "rg -n 'codegraph' .", "",
])
def test_a_mention_is_no_invocation(command):
    assert not runs_codegraph_cli(command)


@pytest.mark.parametrize("name, family", [
    ("mcp__codegraph__codegraph_explore", "codegraph"), ("mcp__codegraph__codegraph_node", "codegraph"),
    ("Read", "read"), ("NotebookRead", "read"), ("Grep", "search"), ("Glob", "search"), ("Bash", "bash"),
    ("BashOutput", "bash"), ("Edit", "other"), ("", "other"), ("read", "other"),
])
def test_tool_families(name, family):
    assert tool_family(name) == family


def test_cold_start_race(tmp_path):
    r = measure(tmp_path, "race")
    assert r.raced is True
    assert r.tools_exposed == 0  # the init event listed Read and Bash only


def test_no_race_and_tools_exposed(tmp_path):
    r = measure(tmp_path, "basic")
    assert r.raced is False
    assert r.tools_exposed == 2  # two of the init event's three tools are codegraph's


def test_cli_call_that_returned_output(tmp_path):
    # Two attempts (the ./node_modules/.bin one and the $( ) one, which errored); the grep and ls/which lines are mentions.
    r = measure(tmp_path, "cli-returned")
    assert (r.cli.attempts, r.cli.returned, r.cli.blocked) == (2, 1, 1)


def test_cli_calls_all_blocked(tmp_path):
    r = measure(tmp_path, "cli-blocked")
    assert (r.cli.attempts, r.cli.returned, r.cli.blocked) == (2, 0, 2)


def test_calls_and_their_details(tmp_path):
    r = measure(tmp_path, "details")
    assert [c.line() for c in r.calls] == [
        "Task [subagent_type=Explore] Find where the router is built, the long",
        'ToolSearch',
        'mcp__codegraph__codegraph_node "createApp"',
        'mcp__codegraph__codegraph_explore "' + "x" * 59,
        "Read deep.ts",
        "Bash find . -name '*.ts' -not -path './node_modules/*' ",  # 50 units: the space after the quote
        "Edit",
    ]
    assert (len(r.calls), r.tools, r.codegraph_calls) == (7, 6, 2)
    assert r.tools_exposed is None  # no init event
    assert (r.segments, r.subtype, r.ok, r.turns) == (("error_max_turns",), "error_max_turns", False, 2)
    assert (r.duration_s, r.cost_usd) == (61.499, 1.23456)
    assert r.by_family() == {"codegraph": 2, "read": 1, "search": 0, "bash": 1, "other": 3}


def test_by_name_in_first_seen_order(tmp_path):
    r = measure(tmp_path, "shedding")
    assert list(r.by_name().items()) == [("mcp__codegraph__codegraph_explore", 1), ("Grep", 1), ("Bash", 1)]


def test_command_cut_at_fifty_utf16_units(tmp_path):
    # "echo '" is 6 units, 41 é 41 more, one emoji 2: the 50th unit is the first half of the next emoji.
    r = measure(tmp_path, "unicode")
    assert r.calls[0].detail == "echo '" + "é" * 41 + "😀" + "\ud83d"


def test_tokens_processed_per_request(tmp_path):
    # m1: 3 + 12,000 + 900 + 150; m2: 5 + 12,900 + 2,100 + 40; m3 logs no usage. Not result.usage ({}).
    r = measure(tmp_path, "usage-mix")
    assert (r.tokens_processed, r.turns) == (13053 + 15045, 3)


def test_segments_of_a_multi_turn_run(tmp_path):
    r = measure(tmp_path, "three-segments")
    assert r.segments == ("success", "error_during_execution", "success")
    assert (r.ok, r.subtype, r.turns) == (False, "success", 6)
    assert r.duration_s == (1500 + 700 + 1000) / 1000
    assert r.cost_usd == 0.05 + 0.01 + 0.1


def test_killed_run_has_no_result(tmp_path):
    r = measure(tmp_path, "no-result")
    assert (r.segments, r.ok, r.duration_s, r.cost_usd) == ((), False, 0, 0)


def test_codex_rollout_marks_what_it_does_not_log_absent():
    from pathlib import Path

    rollout = sorted((Path(__file__).parents[1] / "fixtures" / "codex").glob("rollout-*.jsonl"))[0]
    transcript = readers()["codex"]().read([str(rollout)])
    data = RunMetric().as_json(RunMetric().measure(transcript, MetricOptions()))
    for key in ("tools_exposed", "raced", "turns", "tokens_processed", "duration_s", "cost_usd", "result"):
        assert data[key] is None, key
    assert data["cli_calls"]["returned"] is None
    assert data["tool_calls"] == len(transcript.tool_uses)


def test_codex_token_counts_give_turns_and_tokens():
    """The real Codex rollout logs one token_count with usage: input 22,539 (20,864 of them cached),
    output 10, total 22,549 (tests/fixtures/agents/codex, read off the file)."""
    from pathlib import Path

    rollout = sorted((Path(__file__).parents[1] / "fixtures" / "agents" / "codex").glob("rollout-*.jsonl"))[0]
    transcript = readers()["codex"]().read([str(rollout)])
    r = RunMetric().measure(transcript, MetricOptions())
    assert (r.turns, r.tokens_processed) == (1, 22549)
    assert (r.segments, r.raced, r.tools_exposed, r.duration_s) == (None, None, None, None)
    (request,) = transcript.run_log.requests()
    assert (request.usage.input_tokens, request.usage.cache_read_tokens, request.usage.prompt) == (1675, 20864, 22539)
