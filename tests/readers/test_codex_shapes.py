"""Codex CLI rollouts as current releases write them (issue 29 items 1, 2 and 10;
issue 32 items 1, 2 and 8): `shell_command` / `exec_command` outputs, `phase`d
messages, one turn per user prompt.

The made rollout in tests/fixtures/agents-made/codex follows openai/codex's
formats (its README names the source files); its facts below were read off the
file by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import write_jsonl

from citeledger.core.accountant import score
from citeledger.harness.sufficiency import sufficiency
from citeledger.readers.codex import CodexReader, output_blocks
from citeledger.readers.codex_shell import exit_and_output, shell_output
from citeledger.rules.loader import load_ruleset

HERE = Path(__file__).parent.parent
MADE = next((HERE / "fixtures" / "agents-made" / "codex").glob("rollout-*.jsonl"))
EXPLORE = HERE / "fixtures" / "real" / "explore" / "express-4.21.2"
CART = "def total(items):\n    return sum(i.price * i.qty for i in items)\n"
TAX = "RATE = 0.2\n"
DISC = "def discount(total, code):\n    return total * 0.9 if code == 'TEN' else total\n"


def line(kind, payload):
    return {"timestamp": "2026-06-05T10:00:00.000Z", "type": kind, "payload": payload}


def meta(cwd="/home/dev/shop"):
    return line("session_meta", {"id": "019e9700-0000-7000-8000-000000000001", "cwd": cwd, "cli_version": "0.135.0"})


def call(name, args, cid, output, raw=False):
    arguments = args if raw else json.dumps(args)
    return [line("response_item", {"type": "function_call", "name": name, "arguments": arguments, "call_id": cid}),
            line("response_item", {"type": "function_call_output", "call_id": cid, "output": output})]


def read(tmp_path, lines, keep=True):
    path = tmp_path / "rollout-2026-06-05T10-00-00-019e9700-0000-7000-8000-000000000001.jsonl"
    write_jsonl(path, lines)
    if keep:
        return CodexReader().read([str(path)], load_ruleset("retrieval").read_options())
    return CodexReader().read([str(path)])


def test_user_reads_files_with_shell_command_and_exec_command_and_only_the_output_is_charged():
    result = score(CodexReader().read([str(MADE)], load_ruleset("retrieval").read_options()), load_ruleset("retrieval"))
    # Hand-read: three successful reads (lines 10, 16, 30); the failed `cat src/missing.py`
    # (line 13, Exit code: 1) is no retrieval. Only the text after `Output:` is the file's.
    assert [(c.files, c.origin_line) for c in result.calls] == [
        ((("src/cart.py", len(CART)),), 10), ((("src/tax.py", len(TAX)),), 16), ((("src/discount.py", len(DISC)),), 30),
    ]
    assert result.envelope == len(CART) + len(TAX) + len(DISC) == 154


def test_user_asks_two_questions_and_the_answers_are_the_final_answer_messages_not_the_commentary():
    t = CodexReader().read([str(MADE)])
    # Two user prompts (event_msg user_message, lines 6 and 26) under six turn_context lines.
    assert t.turns == 2
    assert [r.text for r in t.results] == [
        "`total()` in src/cart.py sums price times quantity.",
        "Discounts are applied in src/discount.py by discount().",
    ]
    assert [r.origin.line for r in t.results] == [20, 32]
    # The commentary naming src/tax.py is not in the answer, so tax.py is returned, not cited.
    result = score(CodexReader().read([str(MADE)], load_ruleset("retrieval").read_options()), load_ruleset("retrieval"))
    assert result.used == len(CART) + len(DISC)


def test_a_rollout_without_phases_answers_each_turn_with_its_last_assistant_message(tmp_path):
    lines = [meta(), line("event_msg", {"type": "user_message", "message": "q1"}),
             line("turn_context", {"cwd": "/x"}),
             line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "looking"}]}),
             line("turn_context", {"cwd": "/x"}),
             line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "answer one"}]}),
             line("event_msg", {"type": "user_message", "message": "q2"}),
             line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "answer two"}]})]
    t = read(tmp_path, lines, keep=False)
    assert t.turns == 2
    assert [r.text for r in t.results] == ["answer one", "answer two"]


def test_a_turn_with_two_final_answer_messages_answers_with_both(tmp_path):
    msg = lambda text, phase: line("response_item", {"type": "message", "role": "assistant", "phase": phase,  # noqa: E731
                                                     "content": [{"type": "output_text", "text": text}]})
    lines = [meta(), line("event_msg", {"type": "user_message", "message": "q"}),
             msg("part one", "final_answer"), msg("note", "commentary"), msg("part two", "final_answer")]
    assert [r.text for r in read(tmp_path, lines, keep=False).results] == ["part one", "part two"]


@pytest.mark.parametrize("text, expected", [
    ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\nabc\n", (0, "abc\n")),
    ("Exit code: 2\nWall time: 0 seconds\nTotal output lines: 900\nOutput:\nx", (2, "x")),
    ("Chunk ID: 1f\nWall time: 0.0100 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\nno", (1, "no")),
    ("Chunk ID: 1f\nWall time: 1.0000 seconds\nProcess running with session ID 7\nOutput:\npartial", (None, "partial")),
    ("apply_patch verification failed\n\nExit code: 1\nWall time: 0 seconds\nOutput:\n", (1, "")),  # a model-output prefix
    ("Output:\nnot a header block", None),
    ("plain text\nOutput:\nstill plain", None),
    ("Exit code: " + "9" * 5000 + "\nOutput:\n", None),  # no int of 5,000 digits
])
def test_every_codex_shell_output_form_gives_its_exit_code_and_output(text, expected):
    assert exit_and_output(text) == expected


def test_a_structured_shell_output_with_a_non_zero_exit_is_a_failed_call():
    assert shell_output(('{"output": "x", "metadata": {"exit_code": 1}}',)) == (("x",), True)
    assert shell_output(('{"output": "x", "metadata": {"exit_code": 0}}',)) == (("x",), False)
    assert shell_output(("no header\n",)) == (("no header\n",), False)


def test_user_redacted_the_shell_arguments_and_gets_no_read_and_one_warning_for_the_session(tmp_path):
    lines = [meta(), line("event_msg", {"type": "user_message", "message": "q"})]
    for n in range(3):
        lines += call("shell_command", "[REDACTED]", f"c{n}", "Exit code: 0\nWall time: 0 seconds\nOutput:\nx\n", raw=True)
    path = tmp_path / "rollout-x.jsonl"
    write_jsonl(path, lines)
    ruleset = load_ruleset("retrieval")
    t = CodexReader().read([str(path)], ruleset.read_options())
    assert [w.message for w in t.warnings] == [
        "3 shell call(s) with arguments that are not JSON: no command, not read as file reads"]
    assert all(u.command is None for u in t.tool_uses)
    result = score(t, ruleset)
    assert result.calls == ()
    assert not [w for w in result.warnings if "charged to" in w.message]


def test_explore_calls_of_a_rollout_fill_the_sufficiency_block(tmp_path):
    text = (EXPLORE / "res-send.md").read_text(encoding="utf-8")
    lines = [meta(), line("event_msg", {"type": "user_message", "message": "q"})]
    lines += call("mcp__codegraph__codegraph_explore", {"query": "res.send"}, "e1", text)
    lines += call("mcp__codegraph__codegraph_explore", {"query": "again"}, "e2", text)
    s = sufficiency(read(tmp_path, lines, keep=False), "codegraph_explore")
    # Two answered calls, none "errored or never returned": the first explores again, the second ends the run.
    assert (s.answered, s.errors) == (2, 0)
    assert [c.bucket for c in s.calls] == ["explore_again", "sufficient"]


def test_an_output_nesting_content_1000_deep_is_read_without_recursion():
    output = "deep"
    for _ in range(1000):
        output = {"content": output}
    assert output_blocks(output) == (("deep",), False)


def test_call_id_true_is_not_answered_by_call_id_1(tmp_path):
    lines = [meta(), line("event_msg", {"type": "user_message", "message": "q"}),
             line("response_item", {"type": "function_call", "name": "mcp__codegraph__codegraph_explore",
                                    "arguments": "{}", "call_id": True}),
             line("response_item", {"type": "function_call_output", "call_id": 1, "output": "x"})]
    t = read(tmp_path, lines, keep=False)
    assert t.responses == ()
    assert [w.message for w in t.warnings] == ["function_call_output for unknown call_id 1"]


def test_a_second_output_for_one_call_is_warned(tmp_path):
    lines = [meta(), line("event_msg", {"type": "user_message", "message": "q"})]
    lines += call("mcp__codegraph__codegraph_explore", {"query": "q"}, "e1", "first")
    lines.append(line("response_item", {"type": "function_call_output", "call_id": "e1", "output": "second"}))
    t = read(tmp_path, lines, keep=False)
    assert len(t.responses) == 2
    assert len(t.warnings) == 1 and t.warnings[0].message.startswith("another output for call_id 'e1' (first at ")


def test_an_unknown_10_mb_call_id_is_quoted_bounded(tmp_path):
    lines = [meta(), line("response_item", {"type": "function_call_output", "call_id": "x" * 10_000_000, "output": "o"})]
    t = read(tmp_path, lines, keep=False)
    assert len(t.warnings[0].message) < 200
    assert t.warnings[0].message.endswith("... (10,000,000 characters)")
