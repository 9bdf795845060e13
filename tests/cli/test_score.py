"""`citeledger score` as a user runs it: text, JSON, answer sets, errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from builders import response, section, session
from test_real_fixtures import REAL

from citeledger.cli import main
from citeledger.readers.claude_interactive import escape_project


def cli(*args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_the_promised_fields(tmp_path, capsys):
    text = response(section("lib/a.js", " — alpha(function)", size=300), section("lib/b.js", size=100))
    path = session(tmp_path, [text], "`alpha` does it.")
    code, out, _ = cli("score", path, "--json", capsys=capsys)
    data = json.loads(out)
    assert code == 0
    for key in ("envelope", "used", "efficiency", "lower_bound", "files_returned", "files_used", "has_answer",
                "ruleset", "warnings", "calls", "files"):
        assert key in data
    assert (data["envelope"], data["used"], data["efficiency"], data["lower_bound"]) == (400, 300, 0.75, 0.0)
    assert data["calls"][0]["files"][0] == {"path": "lib/a.js", "chars": 300, "channel": "symbol", "evidence": "alpha"}
    assert data["files"][1] == {"path": "lib/b.js", "chars": 100, "share": 0.25, "calls": 1, "channel": None, "evidence": None}
    assert data["ruleset"] == "default"


def test_answer_set_view(tmp_path, capsys):
    text = response(section("lib/a.js", size=300), section("lib/router/b.js", size=100), section("test/c.js", size=100))
    path = session(tmp_path, [text], "lib/a.js")
    code, out, _ = cli("score", path, "--answer", "lib/**", capsys=capsys)
    # Spec section 8: after the block and a blank line; lib/** matches lib/a.js and lib/router/b.js (400 of 500).
    assert out.endswith(
        "  note: relative metric — attribution is by citation, so compare builds on the same question, not absolutes.\n"
        "\n"
        "Explore envelope: 500 chars over 1 response(s)\n"
        "  answer-set share: 80.0% | top file answers: true\n"
        "  *  60.0%    300  lib/a.js\n"
        "  *  20.0%    100  lib/router/b.js\n"
        "     20.0%    100  test/c.js\n"
    )
    code, out, _ = cli("score", path, "--answer", "lib/*", "--json", capsys=capsys)
    assert json.loads(out)["answer_set"] == {"globs": ["lib/*"], "chars": 300, "share": 0.6, "files": ["lib/a.js"]}


def test_skipped_lines_are_warnings_with_file_and_line(tmp_path, capsys):
    path = session(tmp_path, [response(section("lib/a.js", size=100))], "lib/a.js")
    with open(path, "a") as fh:
        fh.write('{"type": "assistant", "mess')
    code, out, err = cli("score", path, "--json", capsys=capsys)
    assert code == 1
    assert json.loads(out)["warnings"] == [{"file": str(path), "line": 5, "message": "not JSON (truncated), skipped"}]
    code, out, err = cli("score", path, capsys=capsys)
    assert err == f"citeledger: warning: {path}:5: not JSON (truncated), skipped\n"


def test_missing_file_is_one_line_exit_2(tmp_path, capsys):
    code, out, err = cli("score", tmp_path / "nope.jsonl", capsys=capsys)
    assert code == 2 and out == ""
    assert err == f"citeledger: error: {tmp_path / 'nope.jsonl'}: no such file\n"


def test_non_transcript_file_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"a": 1}\n[1, 2]\n')
    code, _, err = cli("score", bad, capsys=capsys)
    assert code == 2
    assert err == (f"citeledger: error: {bad}: not a Claude Code transcript (no assistant/user/result events); "
                   "citeledger reads Claude Code stream-json and interactive logs, Codex CLI rollouts, "
                   "Gemini CLI sessions, Gemini CLI stream-json logs and opencode session exports\n")
    png = tmp_path / "plot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00garbage")
    code, _, err = cli("score", png, capsys=capsys)
    assert code == 2 and err.startswith(f"citeledger: error: {png}: not a Claude Code transcript")


def test_unknown_ruleset_is_exit_2(tmp_path, capsys):
    path = session(tmp_path, [response(section("lib/a.js", size=100))], "lib/a.js")
    code, _, err = cli("score", path, "--ruleset", "nonesuch", capsys=capsys)
    assert code == 2 and "no ruleset 'nonesuch'" in err and err.count("\n") == 1


def test_interactive_session_resolved_from_a_project_directory(tmp_path, capsys, monkeypatch):
    # ~/.claude/projects/<escaped-cwd>/ with the real fixture's log copied in.
    project = tmp_path / "tmp" / "proj"
    project.mkdir(parents=True)
    logs = tmp_path / "home" / ".claude" / "projects" / escape_project(str(project))
    src = REAL / "interactive" / "-tmp-proj-express"
    shutil.copytree(src, logs)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    code, via_project, _ = cli("score", "--session", project, capsys=capsys)
    code2, via_logs, _ = cli("score", "--session", logs, capsys=capsys)
    assert code == code2 == 0
    assert via_project == via_logs
    assert via_project.startswith("Explore allocation — share of returned bytes the answer used (")


def test_console_script_runs_without_traceback(tmp_path):
    bin_dir = Path(sys.executable).parent
    done = subprocess.run([str(bin_dir / "citeledger"), "score", str(tmp_path / "x.jsonl")], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_project_directory_with_its_own_jsonl_files_is_not_a_log_directory(tmp_path, capsys, monkeypatch):
    # A repository that keeps .jsonl test data at its root: --session means its Claude Code logs.
    project = tmp_path / "repo"
    project.mkdir()
    (project / "data.jsonl").write_text('{"type": "result", "result": "not a session"}\n')
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    code, _, err = cli("score", "--session", project, capsys=capsys)
    assert code == 2 and "no Claude Code session logs here or in" in err
    logs = tmp_path / "home" / ".claude" / "projects" / escape_project(str(project))
    shutil.copytree(REAL / "interactive" / "-tmp-proj-express", logs)
    code, out, _ = cli("score", "--session", project, capsys=capsys)
    assert code == 0 and out.startswith("Explore allocation — share of returned bytes")
