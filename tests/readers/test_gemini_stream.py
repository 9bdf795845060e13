"""Gemini CLI headless stream-json logs (issue 29 item 5), on the log made by hand in
tests/fixtures/agents-made/gemini-stream (google-gemini/gemini-cli's output/types.ts shapes)."""

from __future__ import annotations

from pathlib import Path

from builders import write_jsonl

from citeledger.cli import main
from citeledger.core import plugins
from citeledger.core.accountant import score
from citeledger.harness.sufficiency import sufficiency
from citeledger.readers.gemini_stream import GeminiStreamReader
from citeledger.rules.loader import load_ruleset

HERE = Path(__file__).parent.parent
LOG = HERE / "fixtures" / "agents-made" / "gemini-stream" / "gemini-headless.jsonl"
README = "# shop\nA tiny shop written in Python.\n"
EXPLORE = HERE / "fixtures" / "real" / "explore" / "express-4.21.2"


def test_user_scores_a_gemini_headless_log_and_it_is_read_as_gemini():
    # Asked first (claims by content); claude-stream claims every .jsonl and is asked last.
    assert next(name for name, cls in plugins.readers().items() if cls().claims(str(LOG))) == "gemini-stream"
    t = GeminiStreamReader().read([str(LOG)])
    # Hand-read: one prompt (line 2); the answer is the two chunks of lines 9-10 joined.
    assert t.turns == 1
    assert [r.text for r in t.results] == ["README.md says it is a tiny shop written in Python."]
    assert [(u.name, u.file_path) for u in t.tool_uses] == [("read_file", "README.md"), ("read_file", "docs/missing.md")]


def test_its_read_file_results_are_charged_by_the_read_source():
    ruleset = load_ruleset("retrieval")
    scored = score(GeminiStreamReader().read([str(LOG)], ruleset.read_options()), ruleset)
    # The failed read (line 8, status error) is no retrieval.
    assert [c.files for c in scored.calls] == [(("README.md", len(README)),)]
    assert scored.used == len(README) == 38


def test_explore_calls_fill_sufficiency(tmp_path):
    path = tmp_path / "run.jsonl"
    explore = (EXPLORE / "res-send.md").read_text(encoding="utf-8")
    write_jsonl(path, [{"type": "init", "timestamp": "t", "session_id": "s", "model": "m"},
                       {"type": "message", "role": "user", "content": "q"},
                       {"type": "tool_use", "tool_name": "mcp_codegraph_codegraph_explore", "tool_id": "e1",
                        "parameters": {"query": "res.send"}},
                       {"type": "tool_result", "tool_id": "e1", "status": "success", "output": explore},
                       {"type": "message", "role": "assistant", "content": "done", "delta": True},
                       {"type": "result", "status": "success"}])
    t = GeminiStreamReader().read([str(path)])
    assert len(t.responses) == 1
    s = sufficiency(t, "codegraph_explore")
    assert (s.answered, s.errors, [c.bucket for c in s.calls]) == (1, 0, ["sufficient"])


def test_a_claude_stream_is_not_claimed():
    stream = HERE / "fixtures" / "agents" / "claude-stream" / "stream.jsonl"
    assert not GeminiStreamReader().claims(str(stream))


def test_an_unreadable_file_names_the_formats_read(tmp_path, capsys):
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"hello": 1}\n')
    assert main(["score", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "Codex CLI rollouts" in err and "Gemini CLI stream-json logs" in err
