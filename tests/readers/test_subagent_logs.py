"""An older Claude Code's subagent log beside its session's (`agent-<id>.jsonl`, events
`isSidechain: true`) is part of that session, never one of its own (issue 41). Hand-made: no
real transcript of sets A-C has this layout (they keep subagents in `<session>/subagents/`)."""

from __future__ import annotations

import json
import os

from citeledger.cli import main

SESSION = "11111111-1111-1111-1111-111111111111"


def _folder(tmp_path, with_parent=True):
    def ev(kind, **fields):
        return json.dumps({"type": kind, "sessionId": "s1", "cwd": "/p", **fields})
    if with_parent:
        (tmp_path / f"{SESSION}.jsonl").write_text("\n".join([
            ev("user", uuid="u1", message={"role": "user", "content": "where is x?"}),
            ev("assistant", uuid="a1", message={"id": "m1", "role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/p/a.py"}}]}),
            ev("user", uuid="u2", message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "x = 1\n"}]}),
            ev("assistant", uuid="a2", message={"id": "m2", "role": "assistant", "content": [
                {"type": "text", "text": "x is in a.py"}]})]) + "\n")
    sub = tmp_path / "agent-abc.jsonl"
    sub.write_text("\n".join([
        ev("user", isSidechain=True, uuid="s1", message={"role": "user", "content": "look"}),
        ev("assistant", isSidechain=True, uuid="s2", message={"id": "m3", "role": "assistant", "content": [
            {"type": "text", "text": "done"}]})]) + "\n")
    os.utime(sub, (2_000_000_000, 2_000_000_000))  # the newest file of the folder


def test_score_session_takes_the_session_not_its_newer_subagent_log(tmp_path, capsys):
    _folder(tmp_path)
    main(["score", "--ruleset", "retrieval", "--session", str(tmp_path)])
    out, err = capsys.readouterr()
    assert f"scoring {tmp_path / SESSION}.jsonl" in err and f"also read its subagent logs: {tmp_path / 'agent-abc.jsonl'}" in err
    assert "efficiency 100.0%" in out


def test_sweep_counts_one_session_and_reads_the_subagent_with_it(tmp_path, capsys):
    _folder(tmp_path)
    main(["sweep", str(tmp_path), "--ruleset", "retrieval", "--json", "-q", "-j", "1"])
    sessions = [r for r in map(json.loads, capsys.readouterr().out.splitlines()) if r.get("record") == "session"]
    assert len(sessions) == 1 and sessions[0]["status"] == "scored"


def test_a_subagent_log_alone_is_said_and_not_scored_as_a_session(tmp_path, capsys):
    _folder(tmp_path, with_parent=False)
    main(["sweep", str(tmp_path), "--ruleset", "retrieval", "--json", "-q", "-j", "1"])
    out, err = capsys.readouterr()
    assert not [r for r in map(json.loads, out.splitlines()) if r.get("record") == "session"]
    assert "agent-abc.jsonl:0: a subagent's log whose session's log is not beside it: not read as a session" in err
