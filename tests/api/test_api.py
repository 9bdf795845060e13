"""The Python API (api/, the package `citeledger`) against the command line's JSON.

`citeledger.score` is `score --json`'s result, `citeledger.sweep` yields the
`session` records of `sweep --json` in its order, and `citeledger.frames`
holds the same sessions with their calls and files; on every shipped fixture.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import citeledger
from citeledger.cli import main
from citeledger.core import UserError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# Every shipped fixture folder of transcripts (malformed inputs included: their sessions are
# unreadable or unscored, and the API must say so as the sweep does; hostile/ is built by its tests).
FOLDERS = ["real", "pass", "corpus", "codex", "gemini", "with-without", "malformed"]


def cli_records(capsys, *argv) -> list[dict]:
    main(["sweep", *argv, "--json", "-q", "-j1"])
    out, _ = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines()]


def sessions_of(records: list[dict]) -> list[dict]:
    return [r for r in records if r["record"] == "session"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_sweep_yields_the_session_records_sweep_json_writes_in_order(capsys, folder):
    path = str(FIXTURES / folder)
    expected = sessions_of(cli_records(capsys, path))
    assert expected, folder
    assert list(citeledger.sweep(path, jobs=1)) == expected


def test_sweep_under_several_rulesets_and_jobs_keeps_the_order(capsys):
    path = str(FIXTURES / "real")
    expected = sessions_of(cli_records(capsys, path, "--ruleset", "default", "--ruleset", "path-only"))
    got = list(citeledger.sweep([path], rulesets=["default", "path-only"], jobs=2))
    assert got == expected
    assert [r["ruleset"] for r in got[:2]] == ["default", "path-only"]


def test_sweep_takes_exclude_globs(capsys):
    path = str(FIXTURES / "real")
    expected = sessions_of(cli_records(capsys, path, "--exclude", "interactive"))
    got = list(citeledger.sweep(path, jobs=1, exclude=["interactive"]))
    assert got == expected and not any(r["session"].startswith("interactive") for r in got)


def first_files(folder: str) -> list[str]:
    """One file of each session of a folder: what a user would give `score`."""
    return [r["inputs"][0] for r in citeledger.sweep(str(FIXTURES / folder), jobs=1) if r["status"] != "unreadable"]


def printed(capsys, *argv) -> dict:
    main(["score", *argv, "--json"])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("folder", ["real", "codex", "gemini", "corpus"])
def test_score_to_dict_is_the_object_score_json_prints_key_for_key(capsys, folder):
    files = first_files(folder)
    assert files
    for f in files:
        expected = printed(capsys, f)
        got = json.loads(json.dumps(citeledger.score(f).to_dict()))
        assert list(got) == list(expected), f  # the same keys in the same order
        assert got == expected, f


@pytest.mark.parametrize("ruleset", ["default", "retrieval"])
def test_score_with_sufficiency_is_score_json_with_sufficiency(capsys, ruleset):
    for f in first_files("real"):
        expected = printed(capsys, f, "--sufficiency", "--ruleset", ruleset)
        assert json.loads(json.dumps(citeledger.score(f, ruleset, sufficiency=True).to_dict())) == expected, f


def test_score_of_a_session_folder_is_score_session_json(capsys):
    project = FIXTURES / "real" / "interactive" / "-tmp-proj-express"
    expected = printed(capsys, "--session", str(project))
    result = citeledger.score(session=project)
    assert json.loads(json.dumps(result.to_dict())) == expected
    assert result.session_path == expected["session_path"]  # the log it chose


def test_an_answer_set_is_score_answer_json(capsys):
    run = str(FIXTURES / "real" / "stream" / "express-sendfile-2calls.jsonl")
    expected = printed(capsys, run, "--answer", "lib/**")
    assert json.loads(json.dumps(citeledger.score(run, answer=["lib/**"]).to_dict())) == expected
    assert "answer_set" in expected


def test_score_refuses_a_window_out_of_the_commands_range():
    run = FIXTURES / "real" / "stream" / "express-sendfile-2calls.jsonl"
    with pytest.raises(UserError, match=r"window_tokens=999: out of range \(an integer from 1,000 to 10,000,000"):
        citeledger.score(run, window_tokens=999)


def test_an_unscored_sessions_efficiency_is_none_as_in_the_json(capsys):
    run = str(FIXTURES / "real" / "stream" / "express-no-explore.jsonl")
    result = citeledger.score(run)
    assert result.status == "no-explore" and result.efficiency is None
    assert printed(capsys, run)["efficiency"] is None


def test_score_reads_a_whole_session_from_any_one_of_its_segments():
    first = FIXTURES / "real" / "stream" / "flask-views.jsonl"
    second = FIXTURES / "real" / "stream" / "flask-views.t2.jsonl"
    whole = citeledger.score(second)
    assert whole.inputs == (str(first), str(second))
    assert whole.score == citeledger.score([str(first), str(second)]).score
    assert whole.to_dict()["added_inputs"] == [str(first)]  # read beside the file given, as the JSON says


def test_score_refuses_files_of_two_sessions_as_the_command_line_does():
    a = FIXTURES / "real" / "stream" / "express-res-send.jsonl"
    b = FIXTURES / "real" / "stream" / "flask-views.jsonl"
    with pytest.raises(UserError, match="different sessions"):
        citeledger.score([a, b])


def test_score_takes_a_ruleset_by_name_by_path_or_loaded():
    run = FIXTURES / "real" / "stream" / "express-sendfile-2calls.jsonl"
    loaded = citeledger.load_ruleset("path-only")
    assert loaded.name == "path-only"
    by_path = citeledger.load_ruleset(Path(__file__).resolve().parents[2] / "rulesets" / "path-only.yaml")
    assert citeledger.score(run, loaded) == citeledger.score(run, "path-only")
    assert citeledger.score(run, by_path).used == citeledger.score(run, loaded).used


def test_an_unscored_session_says_why(capsys):
    result = citeledger.score(FIXTURES / "real" / "stream" / "express-no-explore.jsonl")
    assert result.status == "no-explore"


def test_missing_paths_raise_a_user_error():
    with pytest.raises(UserError, match="no such file"):
        list(citeledger.sweep("/nonexistent/citeledger-api"))


def test_frames_hold_the_sweep_one_row_per_session_call_and_file(capsys):
    path = str(FIXTURES / "pass")
    records = sessions_of(cli_records(capsys, path))
    tables = citeledger.frames(path, jobs=2)
    sessions, calls, files = tables["sessions"], tables["calls"], tables["files"]
    assert list(sessions["session"]) == [r["session"] for r in records]
    assert list(sessions["status"]) == [r["status"] for r in records]
    assert sessions["envelope"].sum() == sum(r["envelope"] for r in records)
    # Per session: its calls and files, the call rows adding up to its envelope and used chars.
    for r in records:
        mine = calls[calls["session"] == r["session"]]
        assert len(mine) == r["calls"], r["session"]
        assert mine["envelope"].sum() == r["envelope"] and mine["used"].sum() == r["used"]
        theirs = files[files["session"] == r["session"]]
        assert [[p, c, ch if isinstance(ch, str) else None]
                for p, c, ch in zip(theirs["path"], theirs["chars"], theirs["channel"])] == r["files"]
        assert sorted(mine["efficiency"].dropna()) == sorted(r["call_efficiencies"])
    # Unscored sessions are marked, and never in a number: the pooled efficiency is the sweep's.
    scored = sessions[sessions["status"] == "scored"]
    assert set(sessions["status"]) - {"scored"}, "the pass holds unscored sessions"
    slices = [x for x in cli_records(capsys, path) if x["record"] == "slice" and x["slice"] == "all"]
    assert scored["used"].sum() / scored["envelope"].sum() == pytest.approx(slices[0]["pooled"])
    assert calls[calls["status"] != "scored"]["efficiency"].isna().all()
    assert (calls["credited"] == calls["credited_files"].map(len)).all()


def test_frames_name_the_files_each_call_credited():
    run = FIXTURES / "real" / "stream" / "express-sendfile-2calls.jsonl"
    calls = citeledger.frames(run, jobs=1)["calls"]
    result = citeledger.score(run)
    credited = {f.path for f in result.files if f.verdict.channel}
    for row, call in zip(calls.itertuples(), result.calls):
        assert row.credited_files == [p for p in dict.fromkeys(p for p, _ in call.files) if p in credited]
        assert row.query and row.source == "codegraph_explore"


IMPORTS = """
import sys, citeledger
names = sorted(n for n in dir(citeledger) if not n.startswith("_"))
print(names, sorted(m for m in sys.modules if m.startswith(("citeledger.", "pandas"))))
"""


def test_the_package_top_holds_only_the_api_and_imports_nothing_until_used():
    done = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['frames', 'load_ruleset', 'score', 'sweep'] []"


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'scores'"):
        citeledger.scores  # noqa: B018


@pytest.mark.parametrize("jobs", [10_000, -1, 2**70])
def test_sweep_with_more_jobs_than_the_command_line_allows_is_refused_before_any_worker(jobs):
    from citeledger.engine.limits import max_jobs

    with pytest.raises(UserError, match=rf"^jobs=.*: out of range \(an integer from 0 to {max_jobs():,}"):
        next(citeledger.sweep(str(FIXTURES / "real"), jobs=jobs))


def test_sweep_with_jobs_that_is_no_integer_is_refused():
    with pytest.raises(UserError, match=r"^jobs=2\.5: not an integer"):
        next(citeledger.sweep(str(FIXTURES / "real"), jobs=2.5))


# ---------------------------------------------------------------- issue 44: errors in Python's words


def test_citeledger_score_with_nothing_names_paths_and_session_not_flags():
    with pytest.raises(UserError) as caught:
        citeledger.score()
    assert "--" not in str(caught.value) and "FILE" not in str(caught.value)
    assert "score(paths)" in str(caught.value) and "score(session=PATH)" in str(caught.value)


def test_citeledger_score_of_a_folder_points_to_session_and_sweep():
    with pytest.raises(UserError) as caught:
        citeledger.score(FIXTURES / "real" / "interactive")
    message = str(caught.value)
    assert "--session" not in message and "session=" in message and "citeledger.sweep(" in message


def test_citeledger_score_of_paths_and_session_says_give_one_in_python():
    run = FIXTURES / "real" / "stream" / "express-res-send.jsonl"
    with pytest.raises(UserError, match="give paths or session=, not both$"):
        citeledger.score(run, session=FIXTURES / "real" / "interactive")


def test_citeledger_score_of_two_sessions_points_to_citeledger_sweep_not_the_command():
    a = FIXTURES / "real" / "stream" / "express-res-send.jsonl"
    b = FIXTURES / "real" / "stream" / "flask-views.jsonl"
    with pytest.raises(UserError) as caught:
        citeledger.score([a, b])
    assert str(caught.value).endswith("citeledger.score reads one session — citeledger.sweep(paths) scores each")


def test_citeledger_score_of_two_files_as_two_arguments_says_the_second_is_no_ruleset():
    a = FIXTURES / "real" / "stream" / "express-res-send.jsonl"
    b = FIXTURES / "real" / "stream" / "flask-views.jsonl"
    with pytest.raises(UserError) as caught:
        citeledger.score(a, b)  # b lands in `ruleset`
    assert str(caught.value).startswith(f"ruleset={str(b)!r} is a transcript, not a ruleset")
    assert "YAML" not in str(caught.value)


def test_citeledger_score_session_dir_says_which_log_it_read():
    folder = FIXTURES / "real" / "interactive" / "-tmp-proj-express"
    result = citeledger.score(session=folder)
    log = folder / "6f1c2a0e-3b7d-4c55-9e1a-2d4f8b7c9a10.jsonl"
    assert result.inputs[0] == str(log)  # the log chosen, then its subagents'
    assert result.inputs[1:] == (str(log.with_suffix("") / "subagents" / "agent-a7e3c19.jsonl"),)


def test_citeledger_score_with_a_bad_answer_glob_names_answer_not_the_flag():
    run = FIXTURES / "real" / "stream" / "express-res-send.jsonl"
    with pytest.raises(UserError) as caught:
        citeledger.score(run, answer=["?lib"])
    assert str(caught.value) == "answer='?lib': not a valid glob (nothing to repeat)"
