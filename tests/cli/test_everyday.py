"""Issue 44: an agent user's everyday — each friction item as what the user typed.

Real logs from ../shared/transcripts/public-a, read in place (or copied into the test's
tmp_path when a test needs them under an agent's own folder)."""

import json
import os
import shutil
from pathlib import Path

import pytest

from citeledger.cli import main

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "transcripts"
PUBLIC_A = SHARED / "public-a"
CLAUDE_LOG = PUBLIC_A / "claude-code-viewer" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
CODEX_ROLLOUT = PUBLIC_A / "kvsankar-agent-history" / "codex" / "session-01.jsonl"
STREAM_RUN = PUBLIC_A / "perfect-snake" / "48736040" / "claude-stream.jsonl"


@pytest.fixture
def public_a():
    if not PUBLIC_A.is_dir():
        pytest.skip("../shared/transcripts is absent")
    return PUBLIC_A


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# ---------------------------------------------------------------- time and place


def test_score_json_of_a_claude_log_says_when_where_and_which_model(capsys, public_a):
    code, out, _ = cli(capsys, "score", "--json", "--session", CLAUDE_LOG)
    data = json.loads(out)
    assert (data["started"], data["model"], data["project"], data["agent"]) == (
        "2025-09-03T00:52:31.217Z", "claude-sonnet-4-20250514", "/path/to/Demo", "claude")


def test_score_json_of_a_codex_rollout_says_when_where_and_which_model(capsys, public_a):
    _, out, _ = cli(capsys, "score", "--json", CODEX_ROLLOUT)
    data = json.loads(out)
    assert (data["started"], data["model"], data["project"], data["agent"]) == (
        "2026-06-05T04:58:20.593Z", "gpt-5.5", "/tmp/agent-history-real-agent/codex/workspace", "codex")


def test_score_json_of_a_stream_run_has_no_start_time_but_its_model_and_cwd(capsys, public_a):
    _, out, _ = cli(capsys, "score", "--json", STREAM_RUN)
    data = json.loads(out)
    assert data["started"] is None  # stream-json logs no timestamp
    assert data["model"] == "claude-opus-4-6"
    assert data["project"] == "/__w/perfect-snake-platform/perfect-snake-platform/game"


def test_sweep_json_session_records_carry_started_model_project_agent(capsys, public_a):
    code, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", public_a / "localpush-codex")
    sessions = [r for r in records(out) if r["record"] == "session"]
    assert len(sessions) == 6
    assert all(r["agent"] == "codex" and r["model"] and r["started"].startswith("2026-02-23") for r in sessions)
    assert {r["project"] for r in sessions} == {
        "/redacted/path/fa3f7eaace", "/redacted/path/da0ba47443", "/redacted/path/59b923df4d", "/redacted/path/ea96e59ed9"}
