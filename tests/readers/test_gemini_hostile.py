"""Gemini CLI sessions: sufficiency, values JSON allows, other key orders (issue 32 items 1, 2, 3, 8)."""

from __future__ import annotations

import json
from pathlib import Path

from builders import write_jsonl

from citeledger.harness.sufficiency import sufficiency
from citeledger.readers.gemini import GeminiReader

HERE = Path(__file__).parent.parent
EXPLORE = HERE / "fixtures" / "real" / "explore" / "express-4.21.2"
TOOL = "mcp_codegraph_codegraph_explore"


def meta(**extra):
    return {"sessionId": "s-1", "projectHash": "h", "startTime": "t", "lastUpdated": "t", **extra}


def call(call_id, name, args, output):
    result = [{"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}]
    return {"id": call_id, "name": name, "args": args, "result": result, "status": "success", "timestamp": "t"}


def messages():
    explore = (EXPLORE / "res-send.md").read_text(encoding="utf-8")
    return [
        {"id": "u1", "type": "user", "content": [{"text": "How does res.send work?"}]},
        {"id": "g1", "type": "gemini", "content": "", "toolCalls": [call("c1", TOOL, {"query": "res.send"}, explore)]},
        {"id": "g2", "type": "gemini", "content": "", "toolCalls": [
            call("c2", "read_file", {"file_path": "lib/response.js"}, "x")]},
        {"id": "g3", "type": "gemini", "content": "It sets Content-Type in lib/response.js."},
    ]


def test_a_gemini_session_fills_the_sufficiency_block(tmp_path):
    path = tmp_path / "session-2026-01-01T00-00-s1.json"
    path.write_text(json.dumps(meta(messages=messages())), encoding="utf-8")
    t = GeminiReader().read([str(path)])
    assert all(u.assistant for u in t.tool_uses)
    s = sufficiency(t, "codegraph_explore")
    # One answered explore call, followed by a read_file: not a Claude read tool, so the
    # harness's rule (Read/NotebookRead/Grep/Glob/Bash) calls it sufficient.
    assert (s.answered, s.errors) == (1, 0)
    assert [c.bucket for c in s.calls] == ["sufficient"]


def test_an_attacker_writes_a_message_id_with_a_lone_surrogate(tmp_path):
    path = tmp_path / "session-2026-01-01T00-00-s1.json"
    body = json.dumps(meta(messages=messages()))  # ensure_ascii: the surrogate is written as \\ud800
    path.write_text(body.replace('"id": "g3"', '"id": "g3\\ud800"'), encoding="utf-8")
    t = GeminiReader().read([str(path)])
    assert [r.text for r in t.results] == ["It sets Content-Type in lib/response.js."]
    assert t.results[0].origin.line == 1


def test_a_metadata_record_with_messages_5_true_or_1_5_is_read(tmp_path):
    for value in (5, True, 1.5):
        path = tmp_path / "session-2026-01-01T00-00-s1.jsonl"
        write_jsonl(path, [meta(messages=value), {"id": "u1", "type": "user", "content": "q"},
                           {"id": "g1", "type": "gemini", "content": "answer"}])
        t = GeminiReader().read([str(path)])
        assert [r.text for r in t.results] == ["answer"]


def test_a_document_sorted_by_jq_is_claimed(tmp_path):
    path = tmp_path / "session-2026-01-01T00-00-s1.json"
    path.write_text(json.dumps(meta(messages=messages() * 40), sort_keys=True, indent=2), encoding="utf-8")
    assert GeminiReader().claims(str(path))


def test_rewinds_cut_the_message_list_as_the_writer_does(tmp_path):
    path = tmp_path / "session-2026-01-01T00-00-s1.jsonl"
    write_jsonl(path, [meta(), {"id": "u1", "type": "user", "content": "q1"},
                       {"id": "g1", "type": "gemini", "content": "a1"},
                       {"id": "u2", "type": "user", "content": "q2"},
                       {"id": "g2", "type": "gemini", "content": "a2"},
                       {"$rewindTo": "u2"},
                       {"id": "u3", "type": "user", "content": "q3"},
                       {"id": "g3", "type": "gemini", "content": "a3"},
                       {"id": "g1", "type": "gemini", "content": "a1 again"},  # written again: in place
                       {"$rewindTo": "nowhere"},  # an unknown id: everything
                       {"id": "u4", "type": "user", "content": "q4"},
                       {"id": "g4", "type": "gemini", "content": "a4"}])
    t = GeminiReader().read([str(path)])
    assert [r.text for r in t.results] == ["a4"]
    write_jsonl(path, [meta(), {"id": "u1", "type": "user", "content": "q1"},
                       {"id": "g1", "type": "gemini", "content": "a1"},
                       {"id": "u2", "type": "user", "content": "q2"},
                       {"$rewindTo": "u2"},
                       {"id": "g1", "type": "gemini", "content": "a1 again"}])
    assert [r.text for r in GeminiReader().read([str(path)]).results] == ["a1 again"]
