"""A headless run cut at --max-turns (issue 29 item 6): scored as before, and told."""

from __future__ import annotations

from builders import write_jsonl

from citeledger.core.accountant import score
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.rules.loader import load_ruleset


def test_user_scores_a_run_that_ended_at_max_turns_and_is_told_what_was_scored(tmp_path):
    path = tmp_path / "run.jsonl"
    write_jsonl(path, [
        {"type": "system", "subtype": "init", "session_id": "s", "cwd": "/w", "tools": []},
        {"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "Let me look at lib/a.js next."}]},
         "parent_tool_use_id": None, "session_id": "s"},
        # The shape Claude Code writes: no `result` key at all.
        {"type": "result", "subtype": "error_max_turns", "is_error": False, "num_turns": 3, "session_id": "s"},
    ])
    t = ClaudeStreamReader().read([str(path)])
    assert t.results == ()
    assert [w.message for w in t.warnings] == [
        "the run ended at max turns (result subtype error_max_turns) with no result text: "
        "the answer scored is its last main-thread assistant text (a progress note)"]
    scored = score(t, load_ruleset("default"))
    # The reference's rule: the last main-thread text is the answer (default's numbers unchanged).
    assert scored.answer == "Let me look at lib/a.js next."
    assert scored.answer_source == "text-event"
