"""Envelope sources (core/source.py, sources/): each charges what docs/sources.md says.

Every transcript here is built by hand, so each size is counted from the text
written in the test (ASCII: UTF-16 units are characters).
"""

from __future__ import annotations

import json
import textwrap

import pytest

from citeledger.cli import main
from citeledger.core import UNKNOWN, accountant
from citeledger.core.plugins import readers, sources
from citeledger.core.plugins import check_source, PluginError
from citeledger.rules.loader import RulesetError, load_ruleset

from builders import answer_to, explored, response, section, use, write_jsonl
from cpu_time import grows_linearly

READ_TEXT = "     1→import os\n     2→\n     3→def main():\n     4→    return os.getcwd()\n"
GREP_CONTENT = "/w/src/a.py:3:def main():\n/w/src/b.py:10:def main_loop():\n/w/src/a.py-4-    return 1\n"
GREP_FILES = "Found 2 files\n/w/src/a.py\n/w/src/b.py\n"
GREP_COUNT = "/w/src/a.py:2\n/w/src/b.py:1\n\nFound 3 total occurrences across 2 files."
GLOB_TEXT = "/w/src/a.py\n/w/src/c/d.py\n"
SED_TEXT = "def helper():\n    pass\n"


def read_session(tmp_path, rows, ruleset="retrieval", answer="See `src/a.py`."):
    path = write_jsonl(tmp_path / "s.jsonl", [*rows, {"type": "result", "subtype": "success", "result": answer}])
    rules = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    transcript = readers()["claude-stream"]().read([str(path)], rules.read_options())
    return transcript, accountant.score(transcript, rules)


def sections(score):
    return [(s, p, c) for call, s in zip(score.calls, [x for x in _sources(score)]) for p, c in call.files]


def _sources(score):
    by = {n: s.name for s in score.sources for n in s.calls}
    return [by.get(c.number, "?") for c in score.calls]


def test_every_builtin_source_is_registered_with_frozen_options():
    found = sources()
    assert {"codegraph_explore", "read", "grep", "glob", "bash_read", "mcp"} <= set(found)
    for cls in found.values():
        check_source(cls)

    class Bad:
        name = "bad"
        Options = dict
    with pytest.raises(PluginError, match="frozen attrs"):
        check_source(Bad)


def test_default_keeps_no_other_tool_results(tmp_path):
    rows = [use("r1", "Read", {"file_path": "/w/src/a.py"}), answer_to("r1", READ_TEXT)]
    transcript, score = read_session(tmp_path, rows, "default")
    assert transcript.tool_results == () and score.calls == () and score.sources == ()
    transcript, score = read_session(tmp_path, rows, "retrieval")
    assert [r.name for r in transcript.tool_results] == ["Read"]


def test_read_charges_the_whole_text_prefixes_included_to_its_file(tmp_path):
    rows = [use("r1", "Read", {"file_path": "/w/src/a.py"}), answer_to("r1", READ_TEXT),
            use("r2", "NotebookRead", {"notebook_path": "/w/nb.ipynb"}), answer_to("r2", "cell 1\n")]
    _, score = read_session(tmp_path, rows)
    # 17 + 8 + 19 + 30 chars, prefixes included ("     1→" is 7).
    assert len(READ_TEXT) == 74
    assert [c.files for c in score.calls] == [(("/w/src/a.py", 74),), (("/w/nb.ipynb", 7),)]
    assert score.envelope == 81 and score.used == 74  # the answer cites src/a.py (path suffix)
    assert {s.name: (s.envelope, s.used) for s in score.sources}["read"] == (81, 74)


def test_read_without_a_file_goes_to_unknown_and_warns(tmp_path):
    rows = [use("r1", "Read", {}), answer_to("r1", "abc\n")]
    _, score = read_session(tmp_path, rows)
    assert score.calls[0].files == ((UNKNOWN, 4),)
    assert any("charged to (unknown)" in w.message for w in score.warnings)


def test_a_failed_read_is_no_call(tmp_path):
    rows = [use("r1", "Read", {"file_path": "/w/x.py"}), answer_to("r1", "File does not exist.", is_error=True)]
    _, score = read_session(tmp_path, rows)
    assert score.calls == ()


def test_grep_content_mode_charges_each_line_to_its_prefix(tmp_path):
    rows = [use("g1", "Grep", {"pattern": "main", "output_mode": "content", "-n": True}), answer_to("g1", GREP_CONTENT)]
    _, score = read_session(tmp_path, rows)
    # a.py: "/w/src/a.py:3:def main():\n" (26) + context "/w/src/a.py-4-    return 1\n" (27); b.py: 32.
    assert dict(score.calls[0].files) == {"/w/src/a.py": 53, "/w/src/b.py": 32}
    assert score.envelope == len(GREP_CONTENT) == 85


def test_grep_of_one_file_has_no_prefix(tmp_path):
    rows = [use("g1", "Grep", {"pattern": "x", "path": "/w/src/a.py", "output_mode": "content"}), answer_to("g1", "3:x = 1\n9:y = x\n")]
    _, score = read_session(tmp_path, rows)
    assert score.calls[0].files == (("/w/src/a.py", 16),)  # "3:x = 1\n" and "9:y = x\n", 8 each


def test_grep_content_line_without_a_path_goes_to_unknown(tmp_path):
    rows = [use("g1", "Grep", {"pattern": "x", "path": "/w/src", "output_mode": "content"}), answer_to("g1", "no prefix here\n")]
    _, score = read_session(tmp_path, rows)
    assert score.calls[0].files == ((UNKNOWN, 15),)
    assert any("grep: Grep result charged to (unknown)" in w.message for w in score.warnings)


def test_grep_plain_path_lines_are_the_text_before_the_first_colon(tmp_path):
    from citeledger.sources.grep import content_lines

    text = "/w/src/a.py:x = 1\nsrc/b.js:a:b\nnotes:y\n"
    # "notes" holds no "." or "/": not a path, so its line goes where the last one did.
    assert content_lines(text, None) == ([("/w/src/a.py", "/w/src/a.py:x = 1\n"), ("src/b.js", "src/b.js:a:b\n"),
                                          ("src/b.js", "notes:y\n")], False)


def test_grep_content_lines_cost_cpu_linear_in_a_long_line_without_a_colon():
    # Issue 32 item 3: re's plain-line pattern backtracked quadratically: an 80 KB
    # base64 line cost 15 s. Four times the line may cost at most eight times the CPU
    # (measured 3.7x from 100 KB; a quadratic rescan is 16x).
    from citeledger.sources.grep import content_lines

    def work(size):
        text = "QUJD/+9x" * (size // 8) + "\n"  # base64 holds "/" and "+", never ":"
        return lambda: [content_lines(text, None) for _ in range(3)]

    linear, small, large = grows_linearly(work, 100_000, repeat=9)  # ms-sized runs were noise
    assert linear, (small, large)


def test_grep_files_and_count_modes_charge_each_path_its_line(tmp_path):
    rows = [use("g1", "Grep", {"pattern": "main"}), answer_to("g1", GREP_FILES),
            use("g2", "Grep", {"pattern": "main", "output_mode": "count"}), answer_to("g2", GREP_COUNT)]
    _, score = read_session(tmp_path, rows)
    assert score.calls[0].files == (("/w/src/a.py", 12), ("/w/src/b.py", 12))
    assert score.calls[1].files == (("/w/src/a.py", 14), ("/w/src/b.py", 14))
    # "Found 2 files\n" (14) and the count summary (1 + 43) are meta: in the envelope, no file's.
    assert score.meta_chars == 14 + 42  # "\n" + "Found 3 total occurrences across 2 files." (41)
    assert score.envelope == len(GREP_FILES) + len(GREP_COUNT) == 38 + 70


def test_glob_charges_each_path_its_line(tmp_path):
    rows = [use("l1", "Glob", {"pattern": "**/*.py"}), answer_to("l1", GLOB_TEXT),
            use("l2", "Glob", {"pattern": "*.rs"}), answer_to("l2", "No files found")]
    _, score = read_session(tmp_path, rows)
    assert score.calls[0].files == (("/w/src/a.py", 12), ("/w/src/c/d.py", 14))
    assert score.calls[1].files == () and score.meta_chars == 14


def test_bash_read_uses_the_shell_intent_rule(tmp_path):
    rows = [use("b1", "Bash", {"command": "sed -n '1,2p' src/util.py"}), answer_to("b1", SED_TEXT),
            use("b2", "Bash", {"command": "cat > src/new.py <<'EOF'\nx\nEOF"}), answer_to("b2", ""),
            use("b3", "Bash", {"command": "grep -rn helper src"}), answer_to("b3", "src/util.py:1:def helper():\n"),
            use("b4", "Bash", {"command": "cat src/a.py > /tmp/copy"}), answer_to("b4", "whatever\n")]
    _, score = read_session(tmp_path, rows)
    assert [c.files for c in score.calls] == [(("src/util.py", 23),)]  # a write and a search never charge


def test_mcp_source_cuts_another_tool_by_its_declared_header(tmp_path):
    rules = tmp_path / "acme.yaml"
    rules.write_text(textwrap.dedent("""\
        extends: default
        name: acme
        sources:
          use: [codegraph_explore, mcp]
          mcp:
            tool: 'mcp__acme__search'
            header: '(?m)^## File: (\\S+)([^\\n]*)'
            trailer: "\\n---"
        """))
    text = "Results\n## File: src/a.py — main(function)\nbody a\n## File: src/b.py\nbody b\n---\nfooter"
    rows = [use("m1", "mcp__acme__search", {"query": "q"}), answer_to("m1", text),
            use("m2", "mcp__acme__search", {"query": "r"}), answer_to("m2", "nothing found\n"),
            *explored("e1", "q", response(section("src/c.py", size=40)))]
    _, score = read_session(tmp_path, rows, load_ruleset(str(rules)), answer="`main` runs it.")
    # "## File: src/a.py — main(function)\nbody a\n" is 42 chars; "## File: src/b.py\nbody b" 24 (up to the trailer).
    assert [c.files for c in score.calls] == [(("src/a.py", 42), ("src/b.py", 24)), ((UNKNOWN, 14),), (("src/c.py", 40),)]
    # Header names are parsed by header.lark: the symbol channel credits src/a.py by `main`.
    assert {f.path: f.verdict.channel for f in score.files}["src/a.py"] == "symbol"
    assert any("mcp: mcp__acme__search result charged to (unknown) (no header line found)" in w.message
               for w in score.warnings)


def test_the_mcp_source_needs_its_patterns(tmp_path):
    rules = tmp_path / "bad.yaml"
    rules.write_text("extends: default\nsources:\n  use: [mcp]\n  mcp: {tool: x}\n")
    with pytest.raises(RulesetError, match=r"sources.mcp: header: missing \(or shape, or listing: true\)"):
        load_ruleset(str(rules))
    rules.write_text("extends: default\nsources:\n  use: [nope]\n")
    with pytest.raises(RulesetError, match="sources.nope: unknown source"):
        load_ruleset(str(rules))


def test_calls_from_several_sources_are_numbered_in_reading_order(tmp_path):
    rows = [use("r1", "Read", {"file_path": "/w/src/a.py"}), answer_to("r1", READ_TEXT),
            *explored("e1", "q", response(section("src/a.py", size=50), section("src/z.py", size=30))),
            use("l1", "Glob", {"pattern": "*"}), answer_to("l1", GLOB_TEXT)]
    _, score = read_session(tmp_path, rows)
    assert _sources(score) == ["read", "codegraph_explore", "glob"]
    by = {s.name: s for s in score.sources}
    assert (by["codegraph_explore"].envelope, by["codegraph_explore"].used) == (80, 50)
    assert by["grep"].calls == () and by["grep"].envelope == 0


def test_retrieval_text_json_and_explain_name_the_sources(tmp_path, capsys):
    rows = [use("r1", "Read", {"file_path": "/w/src/a.py"}), answer_to("r1", READ_TEXT),
            *explored("e1", "q", response(section("src/a.py", size=50), section("src/z.py", size=30)))]
    path = write_jsonl(tmp_path / "s.jsonl", [*rows, {"type": "result", "subtype": "success", "result": "See `src/a.py`."}])
    assert main(["score", "--ruleset", "retrieval", str(path)]) == 0
    out = capsys.readouterr().out
    assert "by source (total 80.5%): codegraph_explore 62.5% (50/80) · mcp n/a (0/0) · read 100.0% (74/74) · grep n/a (0/0)" in out
    assert main(["score", "--ruleset", "retrieval", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["via"] for c in data["calls"]] == ["read", "codegraph_explore"]
    assert data["sources"][0] == {"source": "codegraph_explore", "calls": 1, "envelope": 80, "used": 50, "efficiency": 0.625}
    assert main(["explain", "--ruleset", "retrieval", str(path)]) == 0
    out = capsys.readouterr().out
    assert "sections: read call 1 (74)" in out and "sections: codegraph_explore call 2 (30)" in out
    assert main(["score", str(path), "--json"]) == 0  # default: no new keys
    data = json.loads(capsys.readouterr().out)
    assert "sources" not in data and "via" not in data["calls"][0]


def _codex_rollout(tmp_path):
    def item(payload):
        return {"timestamp": "2025-11-30T10:00:00Z", "type": "response_item", "payload": payload}
    explore = response(section("src/a.py", size=60), section("src/b.py", size=40))
    rows = [
        {"timestamp": "2025-11-30T10:00:00Z", "type": "session_meta", "payload": {"id": "s1", "cwd": "/w"}},
        {"timestamp": "2025-11-30T10:00:00Z", "type": "turn_context", "payload": {"cwd": "/w"}},
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]}),
        item({"type": "function_call", "name": "mcp__codegraph__codegraph_explore", "arguments": '{"query": "q"}', "call_id": "c1"}),
        item({"type": "function_call_output", "call_id": "c1", "output": explore}),
        item({"type": "function_call", "name": "shell", "call_id": "c2",
              "arguments": json.dumps({"command": ["bash", "-lc", "sed -n '1,2p' src/b.py"], "workdir": "/w"})}),
        item({"type": "function_call_output", "call_id": "c2",
              "output": json.dumps({"output": SED_TEXT, "metadata": {"exit_code": 0}})}),
        item({"type": "local_shell_call", "call_id": "c3", "status": "completed",
              "action": {"type": "exec", "command": ["cat", "src/missing.py"]}}),
        item({"type": "function_call_output", "call_id": "c3",
              "output": json.dumps({"output": "cat: src/missing.py: No such file", "metadata": {"exit_code": 1}})}),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It is `src/a.py`."}]}),
    ]
    return write_jsonl(tmp_path / "rollout-2025-11-30T10-00-00-s1.jsonl", rows)


def test_codex_shell_calls_are_tool_uses_and_bash_read_results(tmp_path):
    path = _codex_rollout(tmp_path)
    rules = load_ruleset("retrieval")
    transcript = readers()["codex"]().read([str(path)], rules.read_options())
    assert [(u.name, u.command) for u in transcript.tool_uses] == [
        ("mcp__codegraph__codegraph_explore", None), ("shell", "sed -n '1,2p' src/b.py"), ("local_shell", "cat src/missing.py")]
    # The failed cat (exit 1) is no result; the sed's output (23 chars) is charged to src/b.py.
    score = accountant.score(transcript, rules)
    assert [c.files for c in score.calls] == [(("src/a.py", 60), ("src/b.py", 40)), (("src/b.py", 23),)]
    assert {s.name: (s.envelope, s.used) for s in score.sources}["bash_read"] == (23, 0)
    # default keeps none of it, and scores as before
    plain = readers()["codex"]().read([str(path)], load_ruleset("default").read_options())
    assert plain.tool_results == () and accountant.score(plain, load_ruleset("default")).envelope == 100


def test_read_after_credits_a_codex_shell_read(tmp_path):
    path = _codex_rollout(tmp_path)
    rules = load_ruleset("reactions")
    transcript = readers()["codex"]().read([str(path)], rules.read_options())
    score = accountant.score(transcript, rules)
    verdicts = {f.path: f.verdict for f in score.files}
    assert verdicts["src/a.py"].channel == "path"
    assert verdicts["src/b.py"].channel == "read_after" and verdicts["src/b.py"].evidence.startswith("shell c2 src/b.py")
