"""readers/gemini_tokens.py: what Gemini CLI logs of a run, as the run log's records."""

from __future__ import annotations

import json
from pathlib import Path

from citeledger.core import Origin
from citeledger.metrics.run import run_basics
from citeledger.readers.gemini import GeminiReader
from citeledger.readers.gemini_stream import GeminiStreamReader
from citeledger.readers.gemini_tokens import request_of

FIXTURES = Path(__file__).parents[1] / "fixtures"
HERE = Origin("s.json", 0)


def test_a_request_is_its_prompt_cached_part_and_output_with_thoughts():
    r = request_of({"input": 1000, "output": 20, "cached": 600, "thoughts": 30, "tool": 50, "total": 1100}, HERE)
    assert (r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.output_tokens) == (450, 600, 50)
    assert r.usage.processed == 1100  # the message's own total


def test_a_message_without_tokens_logs_no_request():
    assert request_of(None, HERE) is None
    assert request_of("12", HERE) is None


def test_real_session_gives_turns_and_tokens_and_no_cost():
    # One model message, tokens {input 4383, output 8, cached 0, thoughts 28, tool 0, total 4419}.
    log = next((FIXTURES / "agents" / "gemini").glob("session-*.json"))
    basics = run_basics(GeminiReader().read([str(log)]))
    assert (basics.turns, basics.tokens_processed) == (1, 4419)
    assert basics.cost_usd is None and basics.segments is None and basics.tools_exposed is None


def test_session_without_token_counts_has_no_run_log(tmp_path):
    doc = {"sessionId": "s", "projectHash": "h", "messages": [
        {"id": "1", "type": "user", "content": "hi"}, {"id": "2", "type": "gemini", "content": "hello"}]}
    path = tmp_path / "session-2026-01-01T00-00-abcdef12.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    transcript = GeminiReader().read([str(path)])
    assert transcript.run_log is None
    assert run_basics(transcript).tokens_processed is None  # absent, never 0


def test_headless_run_logs_its_result_but_no_cost():
    # Its result event: status success, stats.duration_ms 2200; no cost, no per-request usage.
    basics = run_basics(GeminiStreamReader().read([str(FIXTURES / "agents-made" / "gemini-stream" / "gemini-headless.jsonl")]))
    assert basics.segments == ("success",) and basics.duration_s == 2.2
    assert basics.cost_usd is None and basics.turns is None and basics.tokens_processed is None
