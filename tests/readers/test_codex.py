"""The Codex CLI rollout reader, on the real-shaped fixture and on small hand-made logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import response, section, write_jsonl

from citeledger.core.accountant import score
from citeledger.cli import main
from citeledger.core.errors import InputError
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.readers.codex import CodexReader, output_blocks
from citeledger.rules.loader import load_ruleset

HERE = Path(__file__).parent.parent
ROLLOUT = next((HERE / "fixtures" / "codex").glob("rollout-*.jsonl"))
EXPLORE = HERE / "fixtures" / "real" / "explore" / "express-4.21.2"
TOOL = "mcp__codegraph__codegraph_explore"


def line(kind, payload):
    return {"timestamp": "2025-11-30T10:00:00.000Z", "type": kind, "payload": payload}


def test_fixture_reads_two_explore_calls_and_two_turn_answers():
    t = CodexReader().read([str(ROLLOUT)])
    # The failed call (success: false) and the shell call are not explore responses.
    assert [r.tool_use_id for r in t.responses] == ["call_R1sEnd01", "call_S3ndF004"]
    # Plain-string output and a JSON-string MCP content list both give the raw explore text.
    assert t.responses[0].blocks == ((EXPLORE / "res-send.md").read_text(encoding="utf-8"),)
    assert t.responses[1].blocks == ((EXPLORE / "send-file.md").read_text(encoding="utf-8"),)
    # One answer per turn: its last assistant message, not the "I'll ask codegraph" preamble.
    assert [r.text[:14] for r in t.results] == ["`res.send` pic", "`res.sendFile`"]
    assert t.warnings == () and t.reader == "codex"


def test_fixture_scores_like_the_claude_transcripts_of_the_same_outputs():
    result = score(CodexReader().read([str(ROLLOUT)]), load_ruleset("default"))
    # Section sizes are the hand-worked ones of tests/fixtures/real/expected.json:
    # res-send.md (express-res-send) and send-file.md (call 1 of express-sendfile-2calls).
    assert [c.files for c in result.calls] == [
        (("lib/response.js", 8174), ("lib/utils.js", 1536), ("lib/router/index.js", 3040)),
        (("lib/response.js", 5476), ("lib/router/layer.js", 883), ("lib/router/index.js", 4292), ("lib/application.js", 1744)),
    ]
    # response.js by path in both calls, utils.js by symbol `createETagGenerator`:
    # 8174 + 1536 + 5476 = 15186 of 12750 + 12395 = 25145.
    assert (result.used, result.envelope) == (15186, 25145)
    verdicts = {f.path: (f.verdict.channel, f.verdict.evidence) for f in result.files}
    assert verdicts["lib/utils.js"] == ("symbol", "createETagGenerator")
    assert verdicts["lib/router/layer.js"] == (None, None)
    # Under `lines`, the quoted handle_error line credits layer.js (883 more).
    lines = score(CodexReader().read([str(ROLLOUT)]), load_ruleset("lines"))
    assert lines.used == 15186 + 883
    assert {f.path: f.verdict.channel for f in lines.files}["lib/router/layer.js"] == "quote"


def test_cli_picks_the_codex_reader(capsys):
    assert main(["score", str(ROLLOUT)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Explore allocation — share of returned bytes the answer used (2 calls, 5 files):")
    assert "  efficiency  60.4%  15,186 of 25,145 chars" in out


def test_claims_only_rollouts(tmp_path):
    claude = write_jsonl(tmp_path / "run.jsonl", [{"type": "system", "subtype": "init"}])
    assert CodexReader().claims(str(ROLLOUT))
    assert not CodexReader().claims(str(claude))
    assert not CodexReader().claims(str(tmp_path / "missing.jsonl"))


@pytest.mark.parametrize("pad", [0, 4001, 4090, 5001, 100_000])  # odd: blank lines first
def test_claims_read_the_first_record_whatever_its_length(tmp_path, pad):
    # The first 4 KiB are read first; a first line longer than that is read on.
    blank = b"\n\n" if pad % 2 else b""
    meta = json.dumps({"type": "session_meta", "payload": {"instructions": "x" * pad}}).encode()
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes(blank + meta + b"\n" + b'{"type": "response_item", "payload": {}}\n')
    assert CodexReader().claims(str(rollout))
    rollout.write_bytes(blank + meta)  # no newline after the only line
    assert CodexReader().claims(str(rollout))
    claude = tmp_path / "run.jsonl"
    claude.write_bytes(blank + json.dumps({"type": "system", "cwd": "x" * pad}).encode() + b"\n")
    assert not CodexReader().claims(str(claude))
    rollout.write_bytes(meta[:-1] + b"\n")  # a truncated record opens no rollout
    assert not CodexReader().claims(str(rollout))


@pytest.mark.parametrize(
    "output, blocks, failed",
    [
        ("plain text", ("plain text",), False),
        ([{"type": "input_text", "text": "a"}, {"type": "input_image", "image_url": "x"}], ("a",), False),
        (json.dumps([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]), ("a", "b"), False),
        (json.dumps({"content": [{"type": "text", "text": "a"}], "isError": True}), ("a",), True),
        ({"content": "err: boom", "success": False}, ("err: boom",), True),
        ("[not json", ("[not json",), False),
        ('{"just": "an object"}', ('{"just": "an object"}',), False),
    ],
)
def test_output_shapes(output, blocks, failed):
    assert output_blocks(output) == (blocks, failed)


def test_legacy_bare_items_and_user_message_turns(tmp_path):
    # No envelope and no turn_context: user messages separate turns.
    text = response(section("lib/a.js", size=100))
    path = write_jsonl(tmp_path / "rollout-old.jsonl", [
        {"id": "s", "timestamp": "t", "instructions": None},  # legacy session line: not an item, ignored
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q1"}]},
        {"type": "function_call", "name": "codegraph__codegraph_explore", "arguments": "{}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": text},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "first"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q2"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "lib/a.js"}]},
    ])
    assert CodexReader().claims(str(path))
    t = CodexReader().read([str(path)])
    assert [r.text for r in t.results] == ["first", "lib/a.js"]
    assert score(t, load_ruleset("default")).used == 100


def test_unknown_call_id_is_a_warning_and_not_a_rollout_is_an_error(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [
        line("session_meta", {"id": "s"}),
        line("response_item", {"type": "function_call_output", "call_id": "nope", "output": "x"}),
    ])
    t = CodexReader().read([str(path)])
    assert [w.message for w in t.warnings] == ["function_call_output for unknown call_id 'nope'"]
    other = write_jsonl(tmp_path / "o.jsonl", [{"type": "assistant", "message": {}}])
    with pytest.raises(InputError, match="not a Codex CLI rollout"):
        CodexReader().read([str(other)])


def test_claude_reader_is_unchanged_for_claude_files(tmp_path):
    # A Claude stream file still goes to claude-stream through the CLI.
    path = write_jsonl(tmp_path / "run.jsonl", [
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1", "name": TOOL, "input": {}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1",
                                                   "content": response(section("lib/a.js", size=50))}]}},
        {"type": "result", "result": "lib/a.js"},
    ])
    assert not CodexReader().claims(str(path))
    assert score(ClaudeStreamReader().read([str(path)]), load_ruleset("default")).used == 50
