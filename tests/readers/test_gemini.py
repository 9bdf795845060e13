"""The Gemini CLI session reader, on the real-output fixtures and on small hand-made sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import write_jsonl

from citeledger.cli import main
from citeledger.core.accountant import score
from citeledger.core.errors import InputError
from citeledger.core.reader import ReadOptions
from citeledger.readers.codex import CodexReader
from citeledger.readers.gemini import GeminiReader, mcp_blocks, result_blocks
from citeledger.rules.loader import load_ruleset

HERE = Path(__file__).parent.parent
FIXTURES = HERE / "fixtures" / "gemini"
DOC = next(FIXTURES.glob("session-*.json"))
LOG = next(FIXTURES.glob("session-*.jsonl"))
REACTIONS = "reactions"  # the shipped ruleset reads Gemini's tools too
EXPLORE = HERE / "fixtures" / "real" / "explore" / "express-4.21.2"
CODEX = next((HERE / "fixtures" / "codex").glob("rollout-*.jsonl"))
CLAUDE = HERE / "fixtures" / "real" / "stream" / "express-res-send.jsonl"
EXPECTED = json.loads((HERE / "fixtures" / "real" / "expected.json").read_text(encoding="utf-8"))


def text(name: str) -> str:
    return (EXPLORE / name).read_text(encoding="utf-8")


def meta(**extra):
    return {"sessionId": "s-1", "projectHash": "h", "startTime": "t", "lastUpdated": "t", **extra}


def call(call_id, name, args, output=None, status="success"):
    result = [{"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}]
    return {"id": call_id, "name": name, "args": args, "result": result, "status": status, "timestamp": "t"}


def write_doc(path: Path, messages, **extra) -> Path:
    path.write_text(json.dumps(meta(messages=messages, **extra), indent=2), encoding="utf-8")
    return path


# -- claims -------------------------------------------------------------------

def test_claims_gemini_files_and_nothing_else():
    gemini, codex = GeminiReader(), CodexReader()
    assert gemini.claims(str(DOC)) and gemini.claims(str(LOG))
    assert not gemini.claims(str(CODEX)) and not gemini.claims(str(CLAUDE))
    assert not codex.claims(str(LOG)) and not codex.claims(str(DOC))
    assert not gemini.claims(str(FIXTURES / "missing.jsonl"))
    assert not gemini.claims(str(REACTIONS))


def test_claims_sniff_the_head_only(tmp_path):
    other_json = tmp_path / "package.json"
    other_json.write_text('{"name": "x", "sessionId": "s", "projectHash": "h"}')
    assert not GeminiReader().claims(str(other_json))  # a session's own key must open the document
    typed = write_jsonl(tmp_path / "t.jsonl", [dict(meta(), type="system")])
    assert not GeminiReader().claims(str(typed))  # an event with a type is someone else's
    # A long first line past the 4 KiB head is still read (bounded).
    long = write_jsonl(tmp_path / "l.jsonl", [meta(directories=["/d" * 5000])])
    assert GeminiReader().claims(str(long))


# -- the fixtures -------------------------------------------------------------

def test_document_reads_explore_calls_tool_uses_and_the_answer():
    t = GeminiReader().read([str(DOC)])
    assert t.reader == "gemini" and t.warnings == () and t.turns == 1
    assert [r.blocks for r in t.responses] == [(text("send-file.md"),), (text("res-send.md"),)]
    assert [u.name for u in t.tool_uses] == ["codegraph_explore", "codegraph_explore", "read_file", "grep_search"]
    read, grep = t.tool_uses[2:]
    assert read.file_path == "/tmp/proj/express/lib/router/layer.js"
    assert (grep.path, grep.pattern) == ("/tmp/proj/express/lib", "ECONNABORTED")
    assert [u.order for u in t.tool_uses] == [0, 1, 2, 3]
    # Origins are the document's lines: each tool call's, increasing, never 0.
    lines = [u.origin.line for u in t.tool_uses]
    assert lines == sorted(lines) and 0 not in lines and len(set(lines)) == 3  # read and grep share a message
    raw = DOC.read_text(encoding="utf-8").split("\n")
    assert '"id": "8b9c0d1e' in raw[read.origin.line - 1]
    assert [r.text[:15] for r in t.results] == ["`res.sendFile` "]
    # The explore calls' preamble is not the answer, and comes before the last tool call.
    assert [a.after_last_tool_use for a in t.assistant_texts] == [False, False, False, True]


def test_document_scores_as_the_claude_transcript_of_the_same_outputs_and_answer():
    result = score(GeminiReader().read([str(DOC)]), load_ruleset("default"))
    expected = EXPECTED["stream/express-sendfile-2calls.jsonl"]
    assert [[list(f) for f in c.files] for c in result.calls] == [c["sections"] for c in expected["calls"]]
    assert (result.used, result.envelope) == (expected["used"], expected["envelope"]) == (16930, 25145)


def test_log_replays_records_and_reads_two_turns():
    t = GeminiReader().read([str(LOG)])
    assert t.warnings == () and t.turns == 2  # the synthetic functionResponse user messages are no prompts
    # The failed explore call (status error) is dropped; the wrapped MCP text is the tool's own.
    assert [r.blocks for r in t.responses] == [(text("res-send.md"),), (text("send-file.md"),)]
    assert [r.tool_use_id.split("_")[-1] for r in t.responses] == ["0", "4"]
    # The rewound draft is gone; the answer is each turn's last model message.
    assert not any("Draft" in a.text for a in t.assistant_texts)
    assert [r.text[:14] for r in t.results] == ["`res.send` pic", "`res.sendFile`"]
    names = [u.name for u in t.tool_uses]
    assert names == ["mcp_codegraph_codegraph_explore", "read_many_files", "read_many_files", "glob",
                     "mcp_codegraph_codegraph_explore", "mcp_codegraph_codegraph_explore", "run_shell_command"]
    many = [u for u in t.tool_uses if u.name == "read_many_files"]
    assert [(u.file_path, u.pattern) for u in many] == [("lib/utils.js", None), (None, "lib/router/*.js")]
    glob = next(u for u in t.tool_uses if u.name == "glob")
    assert (glob.path, glob.pattern) == ("/tmp/proj/express/lib/router", "**/*.js")
    # A message pushed again under its id keeps its place and takes its latest line.
    first = next(u for u in t.tool_uses if u.name.startswith("mcp_"))
    assert json.loads(LOG.read_text().split("\n")[first.origin.line - 1]).get("toolCalls")


def test_log_scores_as_the_codex_rollout_of_the_same_outputs_and_answers():
    result = score(GeminiReader().read([str(LOG)]), load_ruleset("default"))
    assert (result.used, result.envelope) == (15186, 25145)


def test_read_tools_credit_read_after(capsys):
    assert main(["score", str(DOC), "--ruleset", str(REACTIONS)]) == 0
    out = capsys.readouterr().out
    assert "  efficiency  70.8%  17,813 of 25,145 chars" in out
    assert "read_after `read_file read_file-1764496815402-6c1d3a8e0f927 /tmp/proj/express/lib/router/layer.js`" in out


def test_cli_picks_the_gemini_reader(capsys):
    assert main(["score", str(LOG)]) == 0
    assert "  efficiency  60.4%  15,186 of 25,145 chars" in capsys.readouterr().out


# -- shapes -------------------------------------------------------------------

@pytest.mark.parametrize("output, blocks", [
    ("plain", ("plain",)),
    ("<untrusted_context>\na\n</untrusted_context>", ("a",)),
    ("<untrusted_context>\na\n</untrusted_context>\n<untrusted_context>\nb &lt;/untrusted_context&gt;\n</untrusted_context>",
     ("a", "b </untrusted_context>")),
])
def test_mcp_blocks_undo_the_wrapping_exactly(output, blocks):
    assert mcp_blocks(output) == blocks


def test_result_shapes():
    assert result_blocks([{"functionResponse": {"response": {"error": "boom"}}}]) == ((), True)
    assert result_blocks([{"functionResponse": {"response": {}}}]) == ((), False)
    assert result_blocks("x") == (("x",), False)
    assert result_blocks([{"text": "t"}, {"text": "hidden", "thought": True}]) == (("t",), False)
    assert result_blocks(7) == ((), False)


def test_legacy_argument_names(tmp_path):
    path = write_doc(tmp_path / "session-a.json", [
        {"id": "u", "type": "user", "content": "q"},
        {"id": "g", "type": "gemini", "content": "", "toolCalls": [
            {"id": "1", "name": "read_file", "args": {"absolute_path": "/p/a.js"}, "status": "success"},
            {"id": "2", "name": "search_file_content", "args": {"path": "/p/lib", "pattern": "x"}, "status": "success"},
            {"id": "3", "name": "read_many_files", "args": {"paths": "b.js"}, "status": "success"},
        ]},
        {"id": "a", "type": "gemini", "content": [{"text": "the "}, {"text": "answer"}]},
    ])
    t = GeminiReader().read([str(path)])
    assert [(u.file_path, u.path) for u in t.tool_uses] == [("/p/a.js", None), (None, "/p/lib"), ("b.js", None)]
    assert [r.text for r in t.results] == ["the answer"]


# -- bad input: one warning or one error naming the file, never a traceback --

def test_truncated_document_is_one_error_with_its_line(tmp_path):
    path = tmp_path / "session-t.json"
    full = json.dumps(meta(messages=[{"id": "u", "type": "user", "content": "q"}]), indent=2)
    path.write_text(full[:-20], encoding="utf-8")
    with pytest.raises(InputError) as info:
        GeminiReader().read([str(path)])
    assert info.value.file == str(path) and info.value.line == full[:-20].count("\n") + 1
    assert "not JSON" in info.value.message


def test_wrong_types(tmp_path):
    bad_messages = write_doc(tmp_path / "session-m.json", None)
    with pytest.raises(InputError, match="messages is null, not a list"):
        GeminiReader().read([str(bad_messages)])
    odd = write_doc(tmp_path / "session-o.json", [
        "not a message", {"id": "g", "type": "gemini", "content": 5, "toolCalls": {"x": 1}},
        {"id": "h", "type": "gemini", "content": "ok", "toolCalls": [3, {"id": "c", "name": "codegraph_explore",
                                                                       "status": "success", "result": {"k": []}}]},
    ])
    t = GeminiReader().read([str(odd)])
    assert [w.message for w in t.warnings] == [
        "message 0 is not a message record (no string id), skipped",
        "toolCalls is an object, not a list, ignored",
        "tool call 0 has no name, ignored",
    ]
    assert all(w.file == str(odd) for w in t.warnings)
    assert [r.blocks for r in t.responses] == [()] and [r.text for r in t.results] == ["ok"]


def test_log_bad_lines_are_warnings_with_their_line(tmp_path):
    path = tmp_path / "session-x.jsonl"
    path.write_text(json.dumps(meta()) + "\n[1]\n{\"id\": \"u\", \"type\": \"user\", \"content\": \"q\"}\n{\"trunc",
                    encoding="utf-8")
    t = GeminiReader().read([str(path)])
    assert [(w.line, w.message.split(" (")[0]) for w in t.warnings] == [(2, "record is a list, not an object, skipped"),
                                                                          (4, "not JSON")]
    not_gemini = write_jsonl(tmp_path / "session-y.jsonl", [{"id": "u", "type": "user"}])
    with pytest.raises(InputError, match="not a Gemini CLI session log"):
        GeminiReader().read([str(not_gemini)])


def test_huge_document_is_refused_by_the_size_bound(tmp_path):
    path = write_doc(tmp_path / "session-h.json", [{"id": "u", "type": "gemini", "content": "x" * 5000}])
    with pytest.raises(InputError, match=r"larger than 1,000 bytes \(reader.max_line_bytes\)"):
        GeminiReader().read([str(path)], ReadOptions(max_line_bytes=1000))


@pytest.mark.parametrize("body", ['{"sessionId": "s", "projectHash": "h", "messages": [', '{"sessionId": "s", "projectHash": "h", '
                                  '"messages": [{"id": "u", "type": "user", "content": "q"}]}'])
def test_cli_exit_status_is_never_an_internal_error(tmp_path, capsys, body):
    path = tmp_path / "session-c.json"
    path.write_text(body, encoding="utf-8")
    status = main(["score", str(path)])
    out, err = capsys.readouterr()
    assert "internal error" not in err
    if body.endswith("["):  # truncated: one error naming the file and line
        assert status == 2 and err == f"citeledger: error: {path}:1: not JSON (unexpected end of data), session not read\n"
    else:  # read, but nothing to score
        assert status == 1 and "no codegraph_explore responses" in out


def test_retrieval_charges_a_read_file_result_to_the_file_it_read(capsys):
    # The document's read_file call: its output text, whole, is one section of the
    # file its args name (the read source), beside the explore calls.
    doc = json.loads(DOC.read_text(encoding="utf-8"))
    call = next(c for m in doc["messages"] for c in m.get("toolCalls") or () if c["name"] == "read_file")
    output = call["result"][0]["functionResponse"]["response"]["output"]
    assert main(["score", str(DOC), "--ruleset", "retrieval", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    read = {f["path"]: f["chars"] for f in data["files"]}[call["args"]["file_path"]]
    assert read == len(output.encode("utf-16-le")) // 2
    assert [c["via"] for c in data["calls"]] == ["codegraph_explore", "codegraph_explore", "read"]
