"""answer.scope: a multi-turn session judged turn by turn, whatever the agent (issue 41).

The sessions here are hand-made: no real transcript of ../shared/transcripts has two turns
whose answers each cite exactly what their own turn read (the real files are checked in
tests/readers/test_public_*.py). Each is written in its agent's own format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import citeledger
from citeledger.rules.loader import load_ruleset

FIRST, SECOND = "def one():\n    return 1\n" * 20, "def two():\n    return 2\n" * 30


def claude_log(folder: Path) -> Path:
    """A Claude Code interactive log: two prompts, each a Read and an answer citing it."""
    rows, n = [], 0

    def event(kind, content, **extra):
        nonlocal n
        n += 1
        message = {"role": kind, "content": content}
        if kind == "assistant":
            message["id"] = f"msg_{n}"
        rows.append({"type": kind, "sessionId": "s1", "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n > 1 else None,
                     "cwd": "/work/proj", "message": message, **extra})

    for turn, (path, text) in enumerate((("src/one.py", FIRST), ("src/two.py", SECOND)), 1):
        event("user", f"question {turn}: what is in the {turn} file?")
        event("assistant", [{"type": "tool_use", "id": f"toolu_{turn}", "name": "Read",
                             "input": {"file_path": f"/work/proj/{path}"}}])
        event("user", [{"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": text}])
        event("assistant", [{"type": "text", "text": f"It is in `{path}`."}])
    out = folder / "0b1c2d3e-claude.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return out


def codex_rollout(folder: Path) -> Path:
    """A Codex rollout: two user turns, each a shell read and a final_answer citing it."""
    rows = [{"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "r1", "cwd": "/work/proj"}}]
    for turn, (path, text) in enumerate((("src/one.py", FIRST), ("src/two.py", SECOND)), 1):
        rows += [
            {"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": f"question {turn}"}},
            {"timestamp": "t", "type": "response_item", "payload": {
                "type": "function_call", "name": "exec_command", "call_id": f"c{turn}",
                "arguments": json.dumps({"cmd": f"cat {path}"})}},
            {"timestamp": "t", "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": f"c{turn}",
                "output": f"Chunk ID: a{turn}\nWall time: 0.01 seconds\nProcess exited with code 0\nOutput:\n{text}"}},
            {"timestamp": "t", "type": "response_item", "payload": {
                "type": "message", "role": "assistant", "phase": "final_answer",
                "content": [{"type": "output_text", "text": f"It is in `{path}`."}]}},
        ]
    out = folder / "rollout-2026-01-01T00-00-00-0199d1a2-6b3c-7e10-9c4d-2f5e8a7b1c30.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return out


def gemini_session(folder: Path) -> Path:
    """A Gemini CLI session file: two prompts, each a read_file and an answer citing it."""
    messages = []
    for turn, (path, text) in enumerate((("src/one.py", FIRST), ("src/two.py", SECOND)), 1):
        messages.append({"id": f"u{turn}", "timestamp": "t", "type": "user", "content": [{"text": f"question {turn}"}]})
        messages.append({"id": f"g{turn}", "timestamp": "t", "type": "gemini", "content": "", "toolCalls": [{
            "id": f"read_file-{turn}", "name": "read_file", "args": {"file_path": path}, "status": "success",
            "result": [{"functionResponse": {"id": f"read_file-{turn}", "name": "read_file",
                                             "response": {"output": text}}}]}]})
        messages.append({"id": f"a{turn}", "timestamp": "t", "type": "gemini", "content": f"It is in `{path}`."})
    out = folder / "session-2026-01-01T00-00-1f3a9c2e.json"
    out.write_text(json.dumps({"sessionId": "g1", "projectHash": "h", "startTime": "t", "lastUpdated": "t",
                               "messages": messages}), encoding="utf-8")
    return out


def opencode_export(folder: Path) -> Path:
    """An opencode session export: two prompts, each a read part and a text citing it."""
    messages = []
    for turn, (path, text) in enumerate((("src/one.py", FIRST), ("src/two.py", SECOND)), 1):
        messages.append({"info": {"role": "user", "id": f"msg_u{turn}"},
                         "parts": [{"type": "text", "text": f"question {turn}", "id": f"prt_u{turn}"}]})
        messages.append({"info": {"role": "assistant", "id": f"msg_a{turn}", "path": {"cwd": "/work/proj"}}, "parts": [
            {"type": "tool", "tool": "read", "callID": f"call_{turn}", "id": f"prt_c{turn}",
             "state": {"status": "completed", "input": {"filePath": f"/work/proj/{path}"}, "output": text}},
            {"type": "text", "text": f"It is in `{path}`.", "id": f"prt_t{turn}"}]})
    out = folder / "export.json"
    out.write_text(json.dumps({"info": {"id": "ses_1", "directory": "/work/proj"}, "messages": messages}, indent=2),
                   encoding="utf-8")
    return out


@pytest.mark.parametrize("make", [claude_log, codex_rollout, gemini_session, opencode_export],
                         ids=["claude", "codex", "gemini", "opencode"])
def test_a_two_turn_session_whose_answers_each_cite_their_turns_read_scores_100_percent(tmp_path, make):
    score = citeledger.score(make(tmp_path), "retrieval").score
    assert score.status == "scored"
    assert score.envelope == len(FIRST) + len(SECOND)
    assert score.used == score.envelope
    assert score.answer_source == "turns"


def test_judged_against_the_session_alone_the_claude_session_credits_only_the_last_turns_file(tmp_path):
    ruleset = load_ruleset(str(_session_scope(tmp_path)))
    score = citeledger.score(claude_log(tmp_path), ruleset)
    assert score.used == len(SECOND)  # the reference's rule: the last text event alone


def test_a_file_read_in_one_turn_and_cited_only_by_another_turns_answer_is_not_credited(tmp_path):
    log = claude_log(tmp_path)
    text = log.read_text(encoding="utf-8")
    text = text.replace("It is in `src/one.py`.", "IT-ONE").replace("It is in `src/two.py`.", "It is in `src/one.py`.")
    log.write_text(text.replace("IT-ONE", "It is in `src/two.py`."), encoding="utf-8")
    # Turn 1 read one.py and cited two.py; turn 2 read two.py and cited one.py.
    assert citeledger.score(log, "retrieval").used == 0
    assert citeledger.score(log, load_ruleset(str(_session_scope(tmp_path)))).used == len(FIRST)


def _session_scope(tmp_path: Path) -> Path:
    path = tmp_path / "session-scope.yaml"
    path.write_text("extends: retrieval\nname: retrieval-session\nanswer:\n  scope: session\n", encoding="utf-8")
    return path
