"""Picking a ruleset and an answer set on the command line (issue: the ruleset is easy to get
wrong; --answer globs fail silently): what the user typed, and what they are told."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citeledger.cli import main

HERE = Path(__file__).parent.parent
RUN = str(HERE / "fixtures" / "real" / "stream" / "express-sendfile-2calls.jsonl")


def run(args, capsys) -> tuple[int, str, str]:
    status = main(args)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_default_block_names_no_ruleset(capsys):
    status, out, _ = run(["score", RUN], capsys)
    assert status == 0 and "ruleset" not in out.splitlines()[0]


def test_another_ruleset_is_named_in_the_block_heading(capsys):
    out = run(["score", "--ruleset", "corrected", RUN], capsys)[1]
    assert out.splitlines()[0].endswith("(2 calls, 5 files; ruleset corrected):")


def test_a_ruleset_counting_bytes_says_bytes_not_chars(capsys):
    lines = run(["score", "--ruleset", "utf8", RUN], capsys)[1].splitlines()
    assert lines[0].endswith("; ruleset utf8, in bytes):")
    assert " bytes " in lines[1] and " chars" not in lines[1]
    assert all(l.rstrip().endswith("files") and "bytes" in l for l in lines if l.startswith("  call "))


@pytest.mark.parametrize("command", [["score"], ["explain"]])
def test_ruleset_given_twice_to_a_one_ruleset_command_is_refused(command, capsys):
    status, out, err = run([*command, "--ruleset", "utf8", "--ruleset", "corrected", RUN], capsys)
    assert (status, out) == (2, "")
    assert "--ruleset given 2 times" in err and command[0] in err


def test_ruleset_given_twice_to_compare_is_refused(capsys):
    corpus = HERE / "fixtures" / "corpus"
    status, _, err = run(["compare", "-q", str(corpus / "base"), str(corpus / "new"),
                          "--ruleset", "default", "--ruleset", "utf8"], capsys)
    assert status == 2 and "compare uses one ruleset" in err


def test_a_file_named_like_a_shipped_ruleset_does_not_replace_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "corrected").write_text("name: not-shipped\nchannels: {rank: [path]}\nsources: {use: [codegraph_explore]}\n")
    run_copy = tmp_path / "run.jsonl"
    shutil.copy(RUN, run_copy)
    monkeypatch.chdir(tmp_path)
    data = json.loads(run(["score", "--json", "--ruleset", "corrected", "run.jsonl"], capsys)[1])
    assert data["ruleset"] == "corrected"


def test_a_ruleset_given_as_a_path_is_that_file(tmp_path, monkeypatch, capsys):
    (tmp_path / "corrected").write_text("extends: default\nname: mine\n")
    monkeypatch.chdir(tmp_path)
    data = json.loads(run(["score", "--json", "--ruleset", "./corrected", RUN], capsys)[1])
    assert data["ruleset"] == "mine"


def test_an_answer_glob_starting_with_dot_slash_matches_as_without(capsys):
    with_dot = json.loads(run(["score", "--json", "--answer", "./lib/response.js", RUN], capsys)[1])
    bare = json.loads(run(["score", "--json", "--answer", "lib/response.js", RUN], capsys)[1])
    assert with_dot["answer_set"]["files"] == bare["answer_set"]["files"] == ["lib/response.js"]
    assert with_dot["answer_set"]["share"] == bare["answer_set"]["share"] > 0


def test_an_answer_glob_matching_nothing_is_warned_and_exits_1(capsys):
    status, out, err = run(["score", "--answer", "/abs/path/lib/response.js", RUN], capsys)
    assert status == 1 and "answer-set share: 0.0%" in out
    assert err == f"citeledger: warning: {RUN}:0: --answer '/abs/path/lib/response.js' matched no returned file\n"
