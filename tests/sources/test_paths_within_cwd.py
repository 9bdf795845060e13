"""One file under one name (issue 29 item 13): a path inside the session's working
directory is made relative to it before results are pooled; one outside stays absolute."""

from __future__ import annotations

from builders import write_jsonl

from citeledger.core import within
from citeledger.core.accountant import score
from citeledger.readers.claude_interactive import ClaudeInteractiveReader
from citeledger.rules.loader import load_ruleset

SID = "6c1f0a52-1b7e-4a43-9d51-0e3c6f1b2a77"
A = "def a():\n    return 1\n"


def test_within():
    assert within("/w/src/a.py", "/w") == "src/a.py"
    assert within("/w/src/a.py", "/w/") == "src/a.py"
    assert within("/wx/a.py", "/w") == "/wx/a.py"  # a sibling directory is outside
    assert within("/etc/hosts", "/w") == "/etc/hosts"
    assert within("src/a.py", "/w") == "src/a.py"
    assert within("/w/a.py", None) == "/w/a.py"
    assert within(None, "/w") is None


def event(kind, content, cwd="/w"):
    return {"type": kind, "sessionId": SID, "parentUuid": None, "uuid": "u", "cwd": cwd,
            "message": {"role": kind, "content": content}}


def use(tid, name, given):
    return event("assistant", [{"type": "tool_use", "id": tid, "name": name, "input": given}])


def result(tid, text):
    return event("user", [{"type": "tool_result", "tool_use_id": tid, "content": text}])


def test_user_reads_one_file_by_its_absolute_and_its_relative_name_and_it_is_one_file(tmp_path):
    path = tmp_path / f"{SID}.jsonl"
    write_jsonl(path, [
        event("user", "What does a() return?"),
        use("t1", "Read", {"file_path": "/w/src/a.py"}), result("t1", A),
        use("t2", "Bash", {"command": "sed -n '1,2p' src/a.py"}), result("t2", A),
        use("t3", "Read", {"file_path": "/etc/hosts"}), result("t3", "127.0.0.1 localhost\n"),
        event("assistant", [{"type": "text", "text": "a() in src/a.py returns 1."}]),
    ])
    ruleset = load_ruleset("retrieval")
    scored = score(ClaudeInteractiveReader().read([str(path)], ruleset.read_options()), ruleset)
    assert sorted(f.path for f in scored.files) == ["/etc/hosts", "src/a.py"]
    assert (scored.used, scored.envelope) == (2 * len(A), 2 * len(A) + len("127.0.0.1 localhost\n"))
