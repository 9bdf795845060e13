"""Never a partial session in silence: a file given by name is read with the rest of its session.

Expected figures come from tests/fixtures/real/EXPECTED.md (worked by hand):
flask-views is two segments, 86.8% read whole (50.1% of the first alone is
what citeledger used to print); the interactive log is 64.8% with its
subagent's call, 66.4% without it.
"""

import json
import shutil
from pathlib import Path

import pytest

from builders import events, response, section, write_jsonl
from citeledger.cli import main
from citeledger.corpus import discover

REAL = Path(__file__).parent.parent / "fixtures" / "real"
STREAM = REAL / "stream"
PROJECT = REAL / "interactive" / "-tmp-proj-express"
LOG = next(PROJECT.glob("*.jsonl"))


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["score", "explain"])
def test_a_segment_is_read_with_the_segments_beside_it(capsys, command):
    code, out, err = cli(capsys, command, str(STREAM / "flask-views.jsonl"), "--json")
    data = json.loads(out)
    assert code == 0 and err == ""
    assert data["inputs"] == [str(STREAM / "flask-views.jsonl"), str(STREAM / "flask-views.t2.jsonl")]
    assert data["added_inputs"] == [str(STREAM / "flask-views.t2.jsonl")]
    assert round(data["efficiency"] * 100, 1) == 86.8


def test_the_text_says_which_files_were_read(capsys):
    _, out, _ = cli(capsys, "score", str(STREAM / "flask-views.t2.jsonl"))  # the later segment alone
    assert "  efficiency  86.8%" in out
    assert out.endswith(f"  also read, as the same session as the file(s) given: {STREAM / 'flask-views.jsonl'}\n")
    _, out, _ = cli(capsys, "score", str(STREAM / "flask-views.jsonl"), str(STREAM / "flask-views.t2.jsonl"))
    assert "also read" not in out  # nothing was added to what was named


def test_an_interactive_log_given_as_a_file_keeps_its_subagents(capsys):
    _, out, _ = cli(capsys, "score", str(LOG), "--json")
    data = json.loads(out)
    sub = str(LOG.with_suffix("") / "subagents" / "agent-a7e3c19.jsonl")
    assert data["inputs"] == [str(LOG), sub] and data["added_inputs"] == [sub]
    assert len(data["calls"]) == 2 and round(data["efficiency"] * 100, 1) == 64.8
    _, same, _ = cli(capsys, "score", "--session", str(LOG), "--json")
    assert json.loads(same)["efficiency"] == data["efficiency"]


def test_a_missing_segment_is_named_and_exits_1(capsys, tmp_path):
    text = response(section("src/a.py", size=400), section("src/b.py", size=600))
    write_jsonl(tmp_path / "run-x.jsonl", events([text], "src/a.py"))
    write_jsonl(tmp_path / "run-x.t3.jsonl", events([text], "src/b.py", start=3))
    code, out, err = cli(capsys, "score", str(tmp_path / "run-x.jsonl"), "--json")
    assert code == 1
    assert "segment(s) t2 of run-x not found; read without them" in err
    assert json.loads(out)["efficiency"] == pytest.approx(1.0)  # both turns' answers cite both files


def test_sweep_and_compare_complete_a_file_given_by_name(capsys, tmp_path):
    (ref,), warnings = discover([str(STREAM / "flask-views.t2.jsonl")])
    assert [Path(f).name for f in ref.files] == ["flask-views.jsonl", "flask-views.t2.jsonl"] and warnings == []
    # both segments named: one session, no "found twice"
    refs, warnings = discover([str(STREAM / "flask-views.jsonl"), str(STREAM / "flask-views.t2.jsonl")])
    assert len(refs) == 1 and warnings == []
    (ref,), _ = discover([str(LOG)])
    assert ref.reader == "claude-interactive"
    code, out, _ = cli(capsys, "sweep", str(STREAM / "flask-views.jsonl"), "--json", "-q")
    rows = [json.loads(line) for line in out.splitlines()]
    (row,) = [r for r in rows if r["record"] == "session"]
    assert code == 0 and row["turns"] == 2 and len(row["inputs"]) == 2
    assert round(row["efficiency"] * 100, 1) == 86.8
    assert rows[0]["added_inputs"] == [str(STREAM / "flask-views.t2.jsonl")]
    also = f"  also read, as the same session as the file(s) given: {STREAM / 'flask-views.t2.jsonl'}\n"
    for command in (["sweep"], ["sensitivity", "--rulesets", "corrected"]):
        _, out, _ = cli(capsys, command[0], str(STREAM / "flask-views.jsonl"), *command[1:], "-q")
        assert out.splitlines()[1] + "\n" == also, command
    _, out, _ = cli(capsys, "compare", str(STREAM / "flask-views.jsonl"), str(LOG), "-q", "--json")
    assert json.loads(out.splitlines()[0])["added_inputs"] == [
        str(STREAM / "flask-views.t2.jsonl"), str(LOG.with_suffix("") / "subagents" / "agent-a7e3c19.jsonl")]


def test_sweep_inputs_list_the_subagent_files_read(capsys, tmp_path):
    shutil.copytree(PROJECT, tmp_path / "p")
    _, out, _ = cli(capsys, "sweep", str(tmp_path / "p"), "--json", "-q")
    (row,) = [r for r in map(json.loads, out.splitlines()) if r["record"] == "session"]
    assert [Path(f).name for f in row["inputs"]] == [LOG.name, "agent-a7e3c19.jsonl"]


def test_a_segment_named_once_relative_and_once_absolute_is_read_once(monkeypatch):
    from citeledger.corpus import session_for

    repo = Path(__file__).resolve().parent.parent.parent
    monkeypatch.chdir(repo)
    relative = "tests/fixtures/real/stream/flask-views.jsonl"
    _, alone = session_for([relative])
    _, both = session_for([relative, str(repo / "tests/fixtures/real/stream/flask-views.t2.jsonl")])
    assert both.files == alone.files and len(alone.files) == 2 and both.turns == alone.turns
