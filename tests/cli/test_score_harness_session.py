"""`citeledger score --harness --session LOG|DIR`: parse-session.mjs's report, byte for byte.

The oracle is tests/oracle/session_report.mjs, the team's JavaScript
transcription of the report (docs/harness.md "An interactive session") over
reference.mjs's blocks. Compared on every shipped interactive log and the
hand-built sessions of interactive_cases.py; the quirks case's figures are
also worked out by hand below.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path

import pytest

from interactive_cases import CASES, write_session

from citeledger.cli import main

TESTS = Path(__file__).parents[1]
ORACLE = TESTS / "oracle" / "session_report.mjs"
FIXTURES = TESTS / "fixtures"


def shipped_logs() -> list[str]:
    return [str(p) for p in sorted((FIXTURES / "real" / "interactive").glob("*/*.jsonl"))
            + sorted((FIXTURES / "agents" / "claude-interactive").glob("*/*.jsonl"))
            + sorted((FIXTURES / "pass" / "interactive-home").glob(".claude/projects/*/*.jsonl"))]


@functools.cache
def oracle(logs: tuple) -> dict:
    proc = subprocess.run(["node", str(ORACLE), "--batch"], input=json.dumps(list(logs)),
                          capture_output=True, text=True, check=True)
    return dict(zip(logs, json.loads(proc.stdout)))


def ours(args, capsys) -> str:
    code = main(["score", "--harness", "--session", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("interactive-cases")
    return {name: write_session(folder, name) for name in CASES}


@pytest.mark.parametrize("log", shipped_logs(), ids=lambda p: Path(p).parent.name)
def test_shipped_session_prints_what_the_oracle_prints(log, capsys):
    assert ours([log], capsys) == oracle(tuple(shipped_logs()))[log]


@pytest.mark.parametrize("name", sorted(CASES))
def test_built_session_prints_what_the_oracle_prints(name, sessions, capsys):
    assert ours([sessions[name]], capsys) == oracle((sessions[name],))[sessions[name]]


def test_quirks_figures_as_worked_by_hand(sessions, capsys):
    out = ours([sessions["quirks"]], capsys)
    head = out.split("\n\nExplore sufficiency", 1)[0]
    assert head == "\n".join([
        "session: 0a1b2c3d-0000-4000-8000-000000000001", "",
        "MAIN thread tools:",
        # Ties in JavaScript's object key order: the integer-like name first; the BOM-led Read is not read.
        "      2  mcp__codegraph__codegraph_explore", "      1  7", "      1  Glob", "      1  Grep",
        "      1  Task", "      1  Bash", "",
        "SUBAGENT tools (2 subagent transcripts):",
        "      1  mcp__codegraph__codegraph_explore", "      1  Read", "      1  Bash", "",
        # The subagents' explore count alone (1, not 3); Grep/Bash: 1 Grep + 2 Bash, Glob not counted.
        "VERDICT: codegraph_explore used 1x | Read 1 | Grep/Bash 3",
        # gen 100.5 + 8; fresh 10,800 + 750 (m2's usage twice, once per event); cached 500 + 100.
        "TOKENS: gen 0.1k | fresh-in 11.6k | cached-in 0.6k | billable≈ 11.7k",
    ])
    # The BOM-led Read is no act after the second explore: the run's last act is the answer.
    assert '2. "again" [2 files] → (final answer)' in out


def test_log_directory_gives_its_newest_session(tmp_path, capsys):
    folder = tmp_path / "logs"
    folder.mkdir()
    older, newer = folder / "aaa.jsonl", folder / "bbb.jsonl"
    for path, word in ((older, "old"), (newer, "new")):
        path.write_text(json.dumps({"type": "user", "sessionId": path.stem, "message": {"content": word}}) + "\n")
    os.utime(older, (1_000_000, 1_000_000))
    os.utime(newer, (2_000_000, 2_000_000))
    assert ours([str(folder)], capsys).startswith("session: bbb\n")


def test_envelope_options_are_refused_with_session(sessions, capsys):
    assert main(["score", "--harness", "--session", sessions["plain"], "--brief"]) == 2
    assert "not with --harness --session" in capsys.readouterr().err
