"""`citeledger score --harness`: the harness's per-run report, byte for byte.

The oracle is tests/oracle/run_report.mjs, the team's JavaScript
transcription of the report (run basics and occupancy over reference.mjs's
blocks). Compared on every shipped stream fixture (each run with its
segments), every pass run, the real agent logs of tests/fixtures/agents, and
every hand-built case of harness_cases.py,
with and without --brief/--envelope; the JSON figures against the oracle's.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import forked_python
from harness_cases import CASES, write_case

from citeledger.cli import main

TESTS = Path(__file__).parents[1]
ORACLE = TESTS / "oracle" / "run_report.mjs"
FIXTURES = TESTS / "fixtures"
SEGMENT = re.compile(r"\.t(\d+)\.jsonl$")
FLAGS = ([], ["--brief", "--envelope"])


def with_segments(first: Path) -> list[str]:
    """A run file and its .tN segments, in numeric order."""
    stem = first.name.removesuffix(".jsonl")
    turns = sorted(first.parent.glob(f"{stem}.t*.jsonl"), key=lambda p: int(SEGMENT.search(p.name).group(1)))
    return [str(first)] + [str(p) for p in turns]


def shipped_runs() -> list[list[str]]:
    firsts = (sorted((FIXTURES / "real" / "stream").glob("*.jsonl")) + sorted((FIXTURES / "pass").rglob("run-*.jsonl"))
              # Real Claude Code logs with real usage sequences (tests/fixtures/agents/README.md); the
              # interactive ones given as FILEs, as the harness's script would read them.
              + sorted((FIXTURES / "agents" / "claude-stream").glob("*.jsonl"))
              + sorted((FIXTURES / "agents" / "claude-interactive").glob("*/*.jsonl")))
    return [with_segments(p) for p in firsts if not SEGMENT.search(p.name)]


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> dict[str, list[str]]:
    folder = tmp_path_factory.mktemp("harness-cases")
    return {name: write_case(folder, name) for name in CASES}


@functools.cache
def oracle(asked: tuple) -> dict:
    """The oracle's {text, json} for each (files..., flags...) tuple, from one node start."""
    proc = subprocess.run(["node", str(ORACLE), "--batch"], input=json.dumps([list(a) for a in asked]),
                          capture_output=True, text=True, check=True)
    return dict(zip(asked, json.loads(proc.stdout)))


def ours(args, capsys) -> str:
    code = main(["score", "--harness", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def asked_shipped() -> tuple:
    return tuple(tuple(files + flags) for files in shipped_runs() for flags in FLAGS)


@pytest.mark.parametrize("args", asked_shipped(), ids=lambda a: " ".join(Path(x).name if "/" in x else x for x in a))
def test_shipped_run_prints_what_the_oracle_prints(args, capsys):
    assert ours(args, capsys) == oracle(asked_shipped())[args]["text"]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("flags", FLAGS, ids=["full", "brief-envelope"])
def test_case_prints_what_the_oracle_prints(name, flags, cases, capsys):
    asked = tuple(tuple(files + f) for files in cases.values() for f in FLAGS)
    args = tuple(cases[name] + flags)
    assert ours(args, capsys) == oracle(asked)[args]["text"]


def test_multi_segment_run_is_one_session(capsys):
    folder = FIXTURES / "pass" / "cg22" / "headless-express"
    files = [str(folder / "run-headless-with.jsonl"), str(folder / "run-headless-with.t2.jsonl")]
    out = ours(files, capsys)
    assert out.startswith("\n=== run-headless-with.jsonl + run-headless-with.t2.jsonl ===\n")
    assert "| 2 segments (success,success)\n" in out
    assert out == oracle((tuple(files),))[tuple(files)]["text"]


def test_bytes_on_stdout_are_nodes(cases):
    """Through a real stdout: a command cut through an emoji pair is written as U+FFFD, as node writes it."""
    files = cases["unicode"]
    got = forked_python.run([sys.executable, "-m", "citeledger.cli", "score", "--harness", *files], capture_output=True, check=True).stdout
    want = subprocess.run(["node", str(ORACLE), *files], capture_output=True, check=True).stdout
    assert got == want
    assert "\ufffd".encode() in got


def test_answer_glob_implies_the_envelope(capsys):
    run = with_segments(FIXTURES / "real" / "stream" / "express-res-send.jsonl")
    args = (*run, "--answer", "lib/response.js")
    out = ours(args, capsys)
    assert "  answer-set share:" in out
    assert out == oracle((args,))[args]["text"]


def test_json_carries_occupancy_and_run(cases, capsys):
    files = cases["shedding"]
    assert main(["score", "--json", *files]) in (0, 1)
    data = json.loads(capsys.readouterr().out)
    want = oracle((tuple(files),))[tuple(files)]["json"]
    occ, run = data["occupancy"], data["run"]
    assert occ["chars_per_token"] == want["occupancy"]["chars_per_token"] == 2.0
    for family in ("codegraph", "read", "search", "bash", "other"):
        got = occ["families"][family]
        assert (got["residual"], got["contributed"], got["chars"], got["results"]) == (
            want["occupancy"]["residual"][family], want["occupancy"]["contributed"][family],
            want["occupancy"]["chars"][family], want["occupancy"]["results"][family])
    assert occ["families"]["file_access"]["residual"] == want["occupancy"]["residual_file_access"]
    assert (occ["evicted"], occ["final_context"], occ["fixed"]) == (3000, 16000, 10000)
    assert run["by_name"] == want["run"]["by_name"]
    assert (run["turns"], run["tokens_processed"], run["tool_calls"]) == (
        want["run"]["turns"], want["run"]["tokens_processed"], want["run"]["tool_calls"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_figures_equal_the_oracles(name, cases, capsys):
    files = cases[name]
    main(["score", "--json", *files])
    data = json.loads(capsys.readouterr().out)
    want = oracle((tuple(files),))[tuple(files)]["json"]
    o, w = data["occupancy"], want["occupancy"]
    assert (o["final_context"], o["fixed"], o["calibrated"], o["dispersion"], o["compactions"], o["evicted"]) == (
        w["final_context"], w["fixed"], w["calibrated"], w["dispersion"], w["compactions"], w["evicted"])
    assert o["chars_per_token"] == w["chars_per_token"]
    r, v = data["run"], want["run"]
    assert (r["tools_exposed"], r["raced"], r["cli_calls"]["attempts"], r["cli_calls"]["returned"]) == (
        v["tools_exposed"], v["raced"], v["cli_attempts"], v["cli_returned"])
    assert (r["tools"], r["codegraph_calls"], r["duration_s"], r["cost_usd"]) == (
        v["tools"], v["codegraph_calls"], v["duration_s"], v["cost_usd"])
    assert [c["name"] + ("" if c["detail"] is None else " " + c["detail"]) for c in r["calls"]] == [
        c.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass") for c in v["calls"]]


def test_window_tokens_option_and_environment(cases, capsys, monkeypatch):
    files = cases["basic"]
    wide = ours([*files, "--window-tokens", "1000000"], capsys)
    assert "    final context       16,000 tok    1.6% of 1000k window\n" in wide
    monkeypatch.setenv("CG_WINDOW_TOKENS", "1000000")
    assert ours(files, capsys) == wide
    monkeypatch.setenv("CG_WINDOW_TOKENS", "lots")
    assert main(["score", "--harness", *files]) == 2
    assert capsys.readouterr().err.strip().endswith("CG_WINDOW_TOKENS='lots': not an integer from 1,000 to 10,000,000")


def test_window_tokens_out_of_range(cases, capsys):
    assert main(["score", "--harness", *cases["basic"], "--window-tokens", "999"]) == 2
    assert "--window-tokens 999: out of range (an integer from 1,000 to 10,000,000" in capsys.readouterr().err


def test_harness_is_text_only(cases, capsys):
    assert main(["score", "--harness", "--json", *cases["basic"]]) == 2
    assert "not with --json" in capsys.readouterr().err
    assert main(["score", "--brief", *cases["basic"]]) == 2
    assert "--brief: only with --harness" in capsys.readouterr().err


def test_warnings_do_not_fail_the_report(cases, capsys):
    # A killed run's half-written last line warns on stderr; the report is printed and the status is 0, as node's.
    code = main(["score", "--harness", *cases["no-result"]])
    out, err = capsys.readouterr()
    assert code == 0
    assert "Residual context occupancy at end of run:" in out and "Result:" not in out
    assert "not JSON" in err


def test_exactly_the_files_given_are_read(capsys):
    folder = FIXTURES / "pass" / "cg22" / "headless-express"
    out = ours([str(folder / "run-headless-with.jsonl")], capsys)
    assert "\n=== run-headless-with.jsonl ===\n" in out and "segments" not in out
