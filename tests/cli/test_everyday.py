"""Issue 44: an agent user's everyday — each friction item as what the user typed.

Real logs from ../shared/transcripts/public-a, read in place (or copied into the test's
tmp_path when a test needs them under an agent's own folder)."""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import citeledger

from citeledger.cli import main

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "transcripts"
PUBLIC_A = SHARED / "public-a"
CLAUDE_LOG = PUBLIC_A / "claude-code-viewer" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
CODEX_ROLLOUT = PUBLIC_A / "kvsankar-agent-history" / "codex" / "session-01.jsonl"
STREAM_RUN = PUBLIC_A / "perfect-snake" / "48736040" / "claude-stream.jsonl"


@pytest.fixture
def public_a():
    if not PUBLIC_A.is_dir():
        pytest.skip("../shared/transcripts is absent")
    return PUBLIC_A


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# ---------------------------------------------------------------- time and place


def test_score_json_of_a_claude_log_says_when_where_and_which_model(capsys, public_a):
    code, out, _ = cli(capsys, "score", "--json", "--session", CLAUDE_LOG)
    data = json.loads(out)
    assert (data["started"], data["model"], data["project"], data["agent"]) == (
        "2025-09-03T00:52:31.217Z", "claude-sonnet-4-20250514", "/path/to/Demo", "claude")


def test_score_json_of_a_codex_rollout_says_when_where_and_which_model(capsys, public_a):
    _, out, _ = cli(capsys, "score", "--json", CODEX_ROLLOUT)
    data = json.loads(out)
    assert (data["started"], data["model"], data["project"], data["agent"]) == (
        "2026-06-05T04:58:20.593Z", "gpt-5.5", "/tmp/agent-history-real-agent/codex/workspace", "codex")


def test_score_json_of_a_stream_run_has_no_start_time_but_its_model_and_cwd(capsys, public_a):
    _, out, _ = cli(capsys, "score", "--json", STREAM_RUN)
    data = json.loads(out)
    assert data["started"] is None  # stream-json logs no timestamp
    assert data["model"] == "claude-opus-4-6"
    assert data["project"] == "/__w/perfect-snake-platform/perfect-snake-platform/game"


def test_sweep_json_session_records_carry_started_model_project_agent(capsys, public_a):
    code, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", public_a / "localpush-codex")
    sessions = [r for r in records(out) if r["record"] == "session"]
    assert len(sessions) == 6
    assert all(r["agent"] == "codex" and r["model"] and r["started"].startswith("2026-02-23") for r in sessions)
    assert {r["project"] for r in sessions} == {
        "/redacted/path/fa3f7eaace", "/redacted/path/da0ba47443", "/redacted/path/59b923df4d", "/redacted/path/ea96e59ed9"}


# ---------------------------------------------------------------- zero configuration


@pytest.fixture
def agent_home(tmp_path, monkeypatch, public_a):
    """A throwaway HOME holding a Claude Code project folder and a Codex rollout (real logs, copied
    into this test's tmp_path), with the agents' variables unset and the project as the cwd."""
    home = tmp_path / "home"
    project = tmp_path / "proj"
    project.mkdir()
    from citeledger.readers.claude_interactive import escape_project

    logs = home / ".claude" / "projects" / escape_project(os.path.realpath(project))
    logs.mkdir(parents=True)
    shutil.copy(CLAUDE_LOG, logs / CLAUDE_LOG.name)
    rollouts = home / ".codex" / "sessions" / "2026" / "06" / "05"
    rollouts.mkdir(parents=True)
    shutil.copy(CODEX_ROLLOUT, rollouts / "rollout-2026-06-05T04-58-20-019e9625.jsonl")
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)
    return home


def test_sweep_with_no_path_finds_the_claude_project_and_the_codex_rollout(capsys, agent_home):
    code, out, err = cli(capsys, "sweep", "--json", "-q", "-j", "1")
    sessions = [r for r in records(out) if r["record"] == "session"]
    assert sorted(r["agent"] for r in sessions) == ["claude", "codex"]
    claude = agent_home / ".claude" / "projects"
    codex = agent_home / ".codex" / "sessions"
    assert err.count(f"reading claude's logs in {claude}\n") == 1
    assert err.count(f"reading codex's logs in {codex}\n") == 1


def test_sweep_agent_codex_with_no_path_reads_only_codex_sessions(capsys, agent_home):
    _, out, err = cli(capsys, "sweep", "--agent", "codex", "--json", "-q", "-j", "1")
    assert [r["agent"] for r in records(out) if r["record"] == "session"] == ["codex"]
    assert "claude" not in err


def test_sweep_agent_opencode_says_its_reader_reads_exports_not_its_storage(capsys, agent_home):
    code, out, err = cli(capsys, "sweep", "--agent", "opencode")
    assert code == 2 and out == ""
    assert err == ("citeledger: error: --agent opencode: the installed reader reads what `opencode export` prints, "
                   "not opencode's own logs (~/.local/share/opencode/storage): give a PATH to an export\n")


def test_sweep_with_no_path_reads_each_folder_of_claude_config_dir(capsys, agent_home, tmp_path, monkeypatch):
    first, second = tmp_path / "cfg-a", tmp_path / "cfg-b"
    for root in (first, second):
        (root / "projects" / "-p").mkdir(parents=True)
        shutil.copy(CLAUDE_LOG, root / "projects" / "-p" / CLAUDE_LOG.name)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{first}, {second}")
    _, out, err = cli(capsys, "sweep", "--agent", "claude", "--json", "-q", "-j", "1")
    assert [r["agent"] for r in records(out) if r["record"] == "session"] == ["claude", "claude"]
    assert f"reading claude's logs in {first / 'projects'}\n" in err
    assert f"reading claude's logs in {second / 'projects'}\n" in err
    assert str(agent_home / ".claude") not in err  # the variable replaces the default folders


def test_sweep_with_no_path_and_no_agent_folder_says_where_it_looked(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    code, out, err = cli(capsys, "sweep")
    assert code == 2 and len(err.splitlines()) == 1
    assert "no agent's log folder found" in err and "~/.codex/sessions" in err


def test_score_session_with_no_value_scores_the_current_projects_newest_log(capsys, agent_home):
    code, out, err = cli(capsys, "score", "--json", "--session")
    assert json.loads(out)["session"] == CLAUDE_LOG.stem
    assert f"scoring {agent_home / '.claude' / 'projects'}" in err


def sessions_of(out: str) -> list[dict]:
    return [r for r in records(out) if r["record"] == "session"]


def test_sweep_since_2099_finds_none_and_says_so_in_one_line(capsys, agent_home):
    code, out, err = cli(capsys, "sweep", "-q", "-j", "1", "--since", "2099-01-01")
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == "citeledger: no session matches --since 2099-01-01 (2 found)"


def test_sweep_until_2099_keeps_every_session(capsys, agent_home):
    _, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", "--until", "2099-01-01")
    assert len(sessions_of(out)) == 2


def test_sweep_since_a_day_keeps_the_sessions_started_from_it(capsys, agent_home):
    # the Claude log started 2025-09-03T00:52Z, the Codex rollout 2026-06-05T04:58Z
    _, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", "--since", "2026-01-01", "--timezone", "UTC")
    assert [r["agent"] for r in sessions_of(out)] == ["codex"]
    _, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", "--until", "20250903", "--timezone", "UTC")
    assert [r["agent"] for r in sessions_of(out)] == ["claude"]


def test_sweep_until_a_day_in_another_timezone_moves_the_days_edge(capsys, agent_home):
    # 2025-09-03T00:52Z is still 2025-09-02 in Los Angeles
    _, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", "--until", "2025-09-02",
                    "--timezone", "America/Los_Angeles")
    assert [r["agent"] for r in sessions_of(out)] == ["claude"]
    code, _, err = cli(capsys, "sweep", "-q", "-j", "1", "--until", "2025-09-02", "--timezone", "UTC")
    assert code == 1 and "no session matches --until 2025-09-02 --" not in err
    assert err.splitlines()[-1] == "citeledger: no session matches --until 2025-09-02 (2 found)"


def test_sweep_since_7d_and_yesterday_are_understood(capsys, agent_home):
    for when in ("7d", "yesterday", "today"):
        code, _, err = cli(capsys, "sweep", "-q", "-j", "1", "--since", when)
        assert code == 1 and f"no session matches --since {when} (2 found)" in err  # both are older


def test_sweep_since_a_word_it_does_not_know_is_a_usage_error(capsys, agent_home):
    code, _, err = cli(capsys, "sweep", "-q", "--since", "last tuesday")
    assert code == 2 and err.startswith("citeledger: error: --since last tuesday: not a date or time")
    code, _, err = cli(capsys, "sweep", "-q", "--timezone", "Mars/Base")
    assert code == 2 and "--timezone Mars/Base: not a time zone" in err


def test_sweep_project_keeps_the_sessions_of_that_working_directory(capsys, agent_home):
    _, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", "--project", "Demo")
    assert [r["project"] for r in sessions_of(out)] == ["/path/to/Demo"]
    _, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", "--project", "/tmp/agent-history-real-agent")
    assert [r["agent"] for r in sessions_of(out)] == ["codex"]


def test_sweep_session_with_no_start_time_is_kept_and_marked(capsys, public_a):
    code, out, err = cli(capsys, "sweep", "--json", "-q", "-j", "1", "--since", "2000-01-01",
                         public_a / "perfect-snake", public_a / "claude-code-viewer")
    sessions = sessions_of(out)
    assert len(sessions) == 6 and sum(r["started"] is None for r in sessions) == 3
    assert "note: 3 session(s) log no start time: kept" in err


def test_sweep_by_day_pools_each_start_day_in_the_timezone(capsys, agent_home):
    _, out, _ = cli(capsys, "sweep", "--json", "-q", "-j", "1", "--by", "day", "--timezone", "America/Los_Angeles")
    groups = [(r["group"], r["not_scored"]) for r in records(out) if r["record"] == "group"]
    assert groups == [("2025-09-02", 1), ("2026-06-04", 1)]
    _, text, _ = cli(capsys, "sweep", "-q", "-j", "1", "--by", "project")
    assert "  by project:\n  project " in text and "/path/to/Demo" in text


def test_sweep_sessions_names_each_session_in_text_by_start_time(capsys, agent_home):
    _, text, _ = cli(capsys, "sweep", "-q", "-j", "1", "--sessions")
    block = text.split("sessions (2), by start time, under ruleset default:\n", 1)[1]
    header, first, second = block.splitlines()[:3]
    assert header.split() == ["started", "project", "agent", "turns", "calls", "chars", "efficiency", "session"]
    assert first.split()[:4] == ["2025-09-03", "00:52", "/path/to/Demo", "claude"]
    assert first.endswith(CLAUDE_LOG.name) and "no-explore" in first
    assert second.split()[:4] == ["2026-06-05", "04:58", "/tmp/agent-history-real-agent/codex/workspace", "codex"]


# ---------------------------------------------------------------- hints, not silence

VIEWER_LOG = PUBLIC_A / "claude-code-viewer" / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"


def test_score_of_a_plain_claude_code_session_hints_at_the_retrieval_ruleset_once(capsys, public_a):
    code, _, err = cli(capsys, "score", "--session", VIEWER_LOG)
    assert code == 1
    assert err.count("try --ruleset retrieval") == 1
    assert "citeledger: note: 11 Read/Grep/Glob/shell call(s): try --ruleset retrieval\n" in err
    _, out, err = cli(capsys, "score", "--ruleset", "retrieval", "--session", VIEWER_LOG)
    assert "efficiency  64.5%" in out and "try --ruleset" not in err


def test_explain_of_a_plain_claude_code_session_hints_too(capsys, public_a):
    _, _, err = cli(capsys, "explain", "--session", VIEWER_LOG)
    assert err.count("try --ruleset retrieval") == 1


def test_not_scored_reason_under_retrieval_names_its_own_sources(capsys, public_a):
    sample = PUBLIC_A / "simonw-cct" / "sample_session.jsonl"
    _, out, err = cli(capsys, "score", "--ruleset", "retrieval", "--json", sample)
    names = [source.name for source in citeledger.load_ruleset("retrieval").sources]
    assert len(names) > 2 and "codegraph_explore" in names  # the reason names every one, not the explore tool alone
    reason = f"no {', '.join(names[:-1])} or {names[-1]} response with a source section"
    assert json.loads(out)["reason"] == reason
    assert f"not scored (no-explore): {reason}\n" in err
    _, out, _ = cli(capsys, "sweep", "--ruleset", "retrieval", "--json", "-q", "-j", "1", sample)
    assert sessions_of(out)[0]["reason"] == reason
    _, out, err = cli(capsys, "score", "--json", sample)
    assert json.loads(out)["reason"] == "no codegraph_explore response with a source section"  # default's, as before


def test_sweep_of_plain_sessions_under_default_hints_once(capsys, agent_home):
    _, _, err = cli(capsys, "sweep", "-q", "-j", "1")
    assert err.count("try --ruleset retrieval") == 1
    assert "2 session(s) with no explore response under default" in err
    _, _, err = cli(capsys, "sweep", "-q", "-j", "1", "--ruleset", "retrieval")
    assert "try --ruleset" not in err


# ---------------------------------------------------------------- explain names each call


def test_explain_ruleset_retrieval_names_each_read_glob_call(capsys, public_a):
    _, text, _ = cli(capsys, "explain", "--ruleset", "retrieval", "--session", VIEWER_LOG)
    assert "no query recorded" not in text
    assert '    call 3  0.0% of 35 chars  Glob "**/package.json" in "/path/to/Demo"\n' in text
    assert '    call 6  100.0% of 4,021 chars  Read "/path/to/Demo/CLAUDE.md"\n' in text


def test_explain_shows_n_a_for_a_call_that_returned_no_file(capsys, public_a):
    _, text, _ = cli(capsys, "explain", "--ruleset", "retrieval", "--session", VIEWER_LOG)
    assert '    call 1  n/a of 14 chars  Glob "**/*.md" in "~/.claude/commands"\n' in text


def test_explain_json_says_what_each_call_asked(capsys, public_a):
    _, out, _ = cli(capsys, "explain", "--ruleset", "retrieval", "--json", "--session", VIEWER_LOG)
    calls = json.loads(out)["calls"]
    assert calls[5]["asked"] == 'Read "/path/to/Demo/CLAUDE.md"' and calls[5]["query"] is None


def test_explain_names_codex_shell_reads_and_gemini_read_file_calls(capsys, public_a):
    _, text, _ = cli(capsys, "explain", "--ruleset", "retrieval", PUBLIC_A / "rtchess-codex" / "exported-session.jsonl")
    # the share is the scoring's (the turn model's notices move it); the name is what this tests
    assert re.search(r"^    call 1  [\d.]+% of 2,696 chars  shell_command \"sed -n '272,340p' app\.js\"$", text, re.M)
    chat = PUBLIC_A / "metaphi-gemini" / "010ac575" / "chats" / "session-2026-01-30T06-08-7befeae5.json"
    _, text, _ = cli(capsys, "explain", "--ruleset", "retrieval", chat)
    assert re.search(r'^    call 3  [\d.]+% of 2,325 chars  read_file "packed\.json"$', text, re.M)


# ---------------------------------------------------------------- pipes

CLI = [sys.executable, "-m", "citeledger.cli"]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXPRESS_RUN = FIXTURES / "real" / "stream" / "express-sendfile-2calls.jsonl"
GEMINI_CHAT = FIXTURES / "gemini" / "session-2025-11-30T10-00-1f3a9c2e.json"


def piped(*argv, data: bytes):
    """The command with `data` on standard input through a real pipe (as `claude -p ... | citeledger ...`)."""
    return subprocess.run([*CLI, *map(str, argv)], input=data, capture_output=True, timeout=120)


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
def test_claude_p_piped_into_score_dash_scores_it_as_the_file_would_be(capsys, name):
    by_name = cli(capsys, "score", EXPRESS_RUN)
    result = piped("score", name, data=EXPRESS_RUN.read_bytes())
    assert (result.returncode, result.stdout.decode(), result.stderr.decode()) == by_name


def test_score_json_dash_names_its_input_stdin_and_no_temporary_file():
    result = piped("score", "--json", "-", data=EXPRESS_RUN.read_bytes())
    data = json.loads(result.stdout)
    assert data["inputs"] == ["<stdin>"] and not data.get("added_inputs")
    assert "citeledger-stdin-" not in result.stdout.decode()


def test_a_gemini_chat_document_piped_into_score_dash_is_read_as_gemini(capsys):
    result = piped("score", "--json", "-", data=GEMINI_CHAT.read_bytes())
    _, out, _ = cli(capsys, "score", "--json", GEMINI_CHAT)
    assert json.loads(result.stdout)["efficiency"] == json.loads(out)["efficiency"]
    assert json.loads(result.stdout)["agent"] == "gemini"


def test_garbage_piped_into_score_dash_names_stdin_in_its_one_error_line():
    result = piped("score", "-", data=b"garbage\n")
    assert result.returncode == 2
    assert result.stderr.decode().startswith("citeledger: error: <stdin>: not a Claude Code transcript")


def test_score_dash_with_another_file_is_refused():
    result = piped("score", "-", EXPRESS_RUN, data=b"")
    assert result.returncode == 2
    assert "standard input is one session: give it alone" in result.stderr.decode()


def test_citeledger_sweep_piped_into_head_1_ends_quietly_with_exit_0():
    sweep = subprocess.Popen([*CLI, "sweep", "--sessions", "-q", "-j", "1", FIXTURES / "codex"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = subprocess.Popen(["head", "-1"], stdin=sweep.stdout, stdout=subprocess.PIPE)
    sweep.stdout.close()  # head alone holds the pipe's read end, as the shell leaves it
    first = head.communicate(timeout=120)[0]
    assert first.startswith(b"citeledger sweep")
    assert sweep.wait(timeout=120) == 0 and sweep.stderr.read() == b""


def test_sweep_json_whose_reader_left_before_a_byte_still_writes_its_out_folder(tmp_path):
    proc = subprocess.Popen([*CLI, "sweep", "--json", "-q", "-j", "1", "--out", tmp_path / "out", FIXTURES / "codex"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # `| head -0`: the broken pipe is certain, not a race with the pipe's buffer
    assert proc.wait(timeout=120) == 0 and proc.stderr.read() == b""
    assert (tmp_path / "out" / "sweep.jsonl").read_bytes().startswith(b'{"record":')


def test_sweep_json_into_dev_full_is_still_exit_2_naming_stdout():
    with open("/dev/full", "wb") as full:
        result = subprocess.run([*CLI, "sweep", "--json", "-q", "-j", "1", FIXTURES / "codex"],
                                stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert result.returncode == 2
    assert result.stderr.decode() == "citeledger: error: <stdout>: cannot write: No space left on device\n"


# ---------------------------------------------------------------- one option vocabulary

REPO = Path(__file__).resolve().parents[2]
CHECK_SPEC = REPO / "docs" / "examples" / "check" / "express.json"
AB = FIXTURES / "pass" / "cg22" / "ab-express"
OPTION = re.compile(r"(?<![\w-])--[a-z][\w-]*")


def _option_table():
    spec = importlib.util.spec_from_file_location("make_option_table", REPO / "docs" / "make_option_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_check_format_json_prints_what_check_json_prints(capsys):
    given = (CHECK_SPEC, "--diagnostics", AB / "explore-new.jsonl", AB / "run-new-1.jsonl")
    short = cli(capsys, "check", *given, "--json")
    long = cli(capsys, "check", *given, "--format", "json")
    assert long == short and json.loads(long[1])["passed"] in (True, False)
    assert cli(capsys, "check", *given, "--format", "text")[1] == cli(capsys, "check", *given)[1]


def test_check_format_xml_names_the_formats_check_prints(capsys):
    code, out, err = cli(capsys, "check", CHECK_SPEC, "--format", "xml")
    assert (code, out) == (2, "")
    assert err == "citeledger: error: --format xml: no installed format renders check results (these do: json, text)\n"


def test_check_with_no_arguments_asks_for_a_spec_and_does_not_call_file_required(capsys):
    code, out, err = cli(capsys, "check")
    assert (code, out) == (2, "")
    assert err.startswith("citeledger: error: no SPEC given: check judges a spec (docs/check.md)")
    assert "FILE" not in err.split("its session keys")[0]  # FILE is named only as what session keys need
    assert "required" not in err


def test_sweep_format_xml_lists_json_among_the_valid_formats(capsys):
    code, _, err = cli(capsys, "sweep", "--format", "xml", FIXTURES / "codex")
    assert code == 2
    listed = err.split("(these do: ")[1].rstrip(")\n").split(", ")
    assert "json" in listed and "text" in listed and "xml" not in listed
    assert cli(capsys, "sweep", "--format", "json", "-q", FIXTURES / "codex")[1] == \
        cli(capsys, "sweep", "--json", "-q", FIXTURES / "codex")[1]


@pytest.mark.parametrize("command", ["score", "explain", "sweep", "compare", "sensitivity", "check"])
def test_command_help_mentions_only_options_that_command_takes(command):
    taken = _option_table().command_options()[command]
    from citeledger.cli import build_parser

    text = build_parser().get_default("subparsers")[command].format_help()
    text = re.sub(r"\S+\.mjs(?: --[\w-]+)*", "", text)  # codegraph's scripts' own options (parse-run.mjs --brief)
    assert set(OPTION.findall(text)) - {"--help"} <= set(taken)
    assert "--format" in taken and "--json" in taken  # one vocabulary: both on every command


def test_score_help_mentions_no_csv(capsys):
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    assert "--csv" not in capsys.readouterr().out


def test_citeledger_help_names_every_agent_a_reader_reads(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    from citeledger.core.plugins import readers

    agents = {getattr(cls, "agent", None) for cls in readers().values()} - {None}
    names = {"claude": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI", "opencode": "opencode"}
    assert agents <= set(names)
    assert all(names[a] in text for a in agents)
    assert ("opencode has no reader yet" in text) == ("opencode" not in agents)


def test_every_option_docs_cli_md_names_is_one_a_command_takes():
    taken = set().union(*map(set, _option_table().command_options().values()))
    doc = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    doc = re.sub(r"`claude [^`]*`", "", doc)  # another program's command line
    assert set(OPTION.findall(doc)) - {"--help"} <= taken


def test_every_option_a_command_takes_is_in_docs_cli_mds_table():
    doc = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    table = _option_table().table()
    assert table in doc  # the marked block, regenerated by docs/make_outputs.py
    for found in _option_table().command_options().values():
        assert all(f"`{option}`" in table for option in found)


# ---------------------------------------------------------------- compare, briefly


def test_compare_pass_arms_baseline_new_brief_prints_the_arm_and_group_rows_only(capsys):
    given = ("compare", FIXTURES / "pass", "--arms", "baseline", "new", "-q")
    code, whole, _ = cli(capsys, *given)
    brief_code, brief, _ = cli(capsys, *given, "--brief")
    assert brief_code == code
    lines = brief.splitlines()
    assert lines == whole.splitlines()[:len(lines)]  # the head of the whole text, word for word
    assert lines[-1].startswith("  paired: (all) is over the 3 group(s)")
    assert [line.split()[0] for line in lines[2:-2]] == ["cg22/ab-express", "cg22/ab-flask", "cg23/ab-express", "(all)"]
    assert len(whole.splitlines()) > 100 and len(lines) == 8


def test_compare_brief_json_is_refused_for_json_is_whole(capsys):
    code, out, err = cli(capsys, "compare", FIXTURES / "pass", "--arms", "baseline", "new", "--brief", "--json")
    assert (code, out) == (2, "")
    assert err == "citeledger: error: --brief shortens the text: not with --format json (its records are whole)\n"


def test_compare_of_two_folders_whose_groups_do_not_line_up_says_why_in_one_line(capsys, tmp_path):
    for side, group in (("a", "express"), ("b", "express-again")):
        (tmp_path / side / group).mkdir(parents=True)
        shutil.copy(EXPRESS_RUN, tmp_path / side / group / EXPRESS_RUN.name)
    code, out, err = cli(capsys, "compare", tmp_path / "a", tmp_path / "b", "-q")
    title, reason = out.splitlines()
    assert code == 1 and title.startswith("citeledger compare — baseline ")
    assert reason == ("  nothing compared: no group lines up — baseline has express; new has express-again (a "
                      "session's group is its folder under each pass: give passes laid out alike, or --key to pair them)")
    assert "—  —" not in out and err == ""
    _, _, err = cli(capsys, "compare", tmp_path / "a", tmp_path / "b", "-q", "--json")
    assert err == "citeledger: warning: " + reason.strip() + "\n"
    code, out, _ = cli(capsys, "compare", tmp_path / "a", tmp_path / "b", "-q", "--key", "session")
    assert "nothing compared" in out  # each session a group of its own: still no pair


# ---------------------------------------------------------------- the session page at 800 px

# The cells a reader of a session's file table looks for: verdict, file, chars, share, channel.
FILE_CELLS = ("table.files tbody td:nth-child(2)", "table.files td.path", "table.files td[data-field=chars]",
              "table.files td[data-field=share]", "table.files td.channel")
# What reaches past the files table's own box, or makes that box scroll sideways.
TABLE_OVERFLOW_JS = r"""(function () {
  var t = document.querySelector('table.files'), box = t.parentElement, out = [];
  var vw = document.documentElement.clientWidth;
  if (box.scrollWidth > box.clientWidth + 1) out.push('box scrolls: ' + box.scrollWidth + ' > ' + box.clientWidth);
  if (t.getBoundingClientRect().right > vw + 1) out.push('table: ' + t.getBoundingClientRect().right + ' > ' + vw);
  t.querySelectorAll('td, th').forEach(function (c) {
    if (c.scrollWidth > c.clientWidth + 1) out.push('cell ' + c.textContent.slice(0, 30) + ' overflows');
  });
  return out.slice(0, 10);
})()"""


@pytest.fixture(scope="module")
def session_pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("session-pages")
    run = FIXTURES / "pass" / "cg22" / "ab-express" / "run-new-2.jsonl"
    for name, argv in {"default": ["score", run, "--answer", "lib/**"], "lines": ["score", "--ruleset", "lines", run],
                       "explain": ["explain", run]}.items():
        main([str(a) for a in argv] + ["--html", str(folder / f"{name}.html")])
    return folder


@pytest.mark.parametrize("width", [800, 1280])
@pytest.mark.parametrize("name", ["default", "lines", "explain"])
def test_score_html_at_800_and_1280_px_shows_the_file_table_without_a_sideways_scroll(
        session_pages, name, width, browser, tmp_path):
    from page_fit import OUT_OF_VIEW_JS

    page = browser.open(session_pages / f"{name}.html", width=width)
    try:
        assert page.eval(TABLE_OVERFLOW_JS) == []
        for selector in FILE_CELLS:
            assert page.eval(OUT_OF_VIEW_JS(selector)) == [], selector
        shot = tmp_path / f"{name}-{width}.png"
        page.screenshot(shot)  # whole page: as wide as the window, since nothing sticks out
        assert int.from_bytes(shot.read_bytes()[16:20], "big") == width
    finally:
        page.close()
