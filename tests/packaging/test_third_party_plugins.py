"""Plugins added by a third party, each one module and its entry point, in one throwaway
distribution installed once (pip install --target) beside this checkout: a metric (a figure
beside the score in `score --json`), a reader (a transcript format of its own), a
source (a tool's results cut into sections) and a report format (chosen with
`--format NAME`), each written only against
`citeledger.core`'s names and registered exactly as the built-ins are."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from builders import response, section, session

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "citeledger-example-plugins"
version = "0.1.0"
dependencies = ["citeledger"]

[project.entry-points.citeledger]
answer_size = "citeledger_answer_size"
minilog = "citeledger_minilog"
fetch_file = "citeledger_fetch_file"
tsv = "citeledger_tsv_format"

[tool.setuptools]
py-modules = ["citeledger_answer_size", "citeledger_minilog", "citeledger_fetch_file", "citeledger_tsv_format"]
"""

METRIC = '''\
"""The run's result texts (a headless run's answers): how many, and their characters."""

import attrs

from citeledger.core import hookimpl


@attrs.frozen
class AnswerSize:
    texts: int
    chars: int


class AnswerSizeMetric:
    name = "answer_size"

    def measure(self, transcript, options):
        return AnswerSize(texts=len(transcript.results), chars=sum(len(r.text) for r in transcript.results))

    def as_json(self, record):
        return {"texts": record.texts, "chars": record.chars}


@hookimpl
def citeledger_register_metrics(register):
    register(AnswerSizeMetric)
'''


FORMAT = '''\
"""One line per returned file: path, pooled chars, the crediting channel (- for none)."""

from citeledger.core import hookimpl


class Tsv:
    name = "tsv"
    renders = frozenset({"score"})

    def render(self, result):
        return "".join(f"{f.path}\\t{f.chars}\\t{f.verdict.channel or '-'}\\n" for f in result.score.files)


@hookimpl
def citeledger_register_formats(register):
    register(Tsv)
'''

READER = '''\
"""A made-up agent's log, `*.minilog.json`: {"answer": str, "calls": [{"tool", "path", "output"}]}."""

import json

from citeledger.core import (
    InputError, Origin, ResultText, ToolResult, ToolUse, Transcript, hookimpl, is_explore, reading,
)


class MiniLogReader:
    name = "minilog"

    def claims(self, path):
        return path.endswith(".minilog.json")

    def read(self, paths, options):
        (path,) = paths
        with reading(path, "a minilog file"):
            with open(path, encoding="utf-8") as handle:
                log = json.load(handle)
        if not isinstance(log.get("answer"), str):
            raise InputError(path, "no answer")
        responses, kept, uses = [], [], []
        for number, call in enumerate(log["calls"]):
            origin = Origin(file=path, line=1)
            use = ToolUse(name=call["tool"], id=f"c{number}", thread=None, origin=origin, order=number,
                          file_path=call.get("path"), assistant=True)
            result = ToolResult(name=call["tool"], blocks=(call["output"],), origin=origin, use=use,
                                tool_use_id=use.id, order=number)
            uses.append(use)
            if is_explore(call["tool"], options.explore_tool):
                responses.append(result)
            elif options.keep is not None and options.keep(call["tool"]):
                kept.append(result)
        return Transcript(name=path, files=(path,), responses=tuple(responses),
                          results=(ResultText(text=log["answer"], origin=Origin(file=path, line=1)),),
                          assistant_texts=(), warnings=(), reader=self.name, tool_uses=tuple(uses),
                          tool_results=tuple(kept), turns=1)


@hookimpl
def citeledger_register_readers(register):
    register(MiniLogReader)
'''

SOURCE = '''\
"""An MCP server's `fetch_file` tool: its result is one file's text, charged whole to that file."""

import attrs

from citeledger.core import UNKNOWN, ResultSource, hookimpl


class FetchFileSource(ResultSource):
    name = "fetch_file"

    @attrs.frozen
    class Options:
        tools: tuple = ("fetch_file",)

    def pieces(self, text, result):
        path = result.use and result.use.file_path
        return ([(path, text)], "") if path else ([(UNKNOWN, text)], "it names no path")


@hookimpl
def citeledger_register_sources(register):
    register(FetchFileSource)
'''

RULESET = """\
extends: default
name: fetched
description: the reference metric plus a third party's fetch_file results
sources:
  use: [codegraph_explore, fetch_file]
"""


MODULES = {"citeledger_answer_size": METRIC, "citeledger_minilog": READER, "citeledger_fetch_file": SOURCE,
           "citeledger_tsv_format": FORMAT}


def citeledger(args, site=None):
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "citeledger.cli", *args], capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The distribution, built from its source and installed into a directory of its own,
    once per test run (conftest.built_once: the xdist workers share it)."""
    from conftest import built_once

    def build(root):
        source = root / "src"
        source.mkdir()
        (source / "pyproject.toml").write_text(PYPROJECT)
        for module, text in MODULES.items():
            (source / f"{module}.py").write_text(text)
        # The test environment's setuptools builds it (a throwaway distribution's build is not under test).
        install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                                  "--target", str(root / "site"), str(source)], capture_output=True, text=True)
        assert install.returncode == 0, install.stderr[-2000:]

    return built_once(tmp_path_factory, "third-party", build) / "site"


def test_a_metric_from_another_distribution_is_measured_beside_the_score(tmp_path, site):
    answer = "The fix is in lib/a.js."
    transcript = session(tmp_path, [response(section("lib/a.js", size=300))], answer)
    before = citeledger(["score", "--json", str(transcript)])
    assert before.returncode == 0, before.stderr
    assert "answer_size" not in json.loads(before.stdout)  # so the test can fail

    after = citeledger(["score", "--json", str(transcript)], site)
    assert after.returncode == 0, after.stderr
    data = json.loads(after.stdout)
    assert data["answer_size"] == {"texts": 1, "chars": len(answer)}
    # The built-in metrics are still there, and the score did not move.
    assert {"occupancy", "run"} <= data.keys()
    assert data["efficiency"] == json.loads(before.stdout)["efficiency"]


def minilog(tmp_path, answer: str):
    log = tmp_path / "run.minilog.json"
    log.write_text(json.dumps({"answer": answer, "calls": [
        {"tool": "fetch_file", "path": "lib/a.js", "output": "a" * 300},
        {"tool": "fetch_file", "path": "lib/b.js", "output": "b" * 100},
        {"tool": "Bash", "output": "not fetched"},
    ]}))
    return log


def test_a_reader_and_a_source_from_another_distribution_score_their_format(tmp_path, site):
    log = minilog(tmp_path, "The fix is in lib/a.js.")
    ruleset = tmp_path / "fetched.yaml"
    ruleset.write_text(RULESET)
    without = citeledger(["score", "--json", str(log)])
    assert without.returncode == 2 and str(log) in without.stderr  # no reader claims it: so the test can fail

    got = citeledger(["score", "--json", "--ruleset", str(ruleset), str(log)], site)
    assert got.returncode == 0, got.stderr
    data = json.loads(got.stdout)
    # 300 chars to the cited lib/a.js, 100 to lib/b.js (counted by hand); the Bash result is no source's.
    assert (data["envelope"], data["used"]) == (400, 300)
    assert data["efficiency"] == 0.75


def test_a_third_party_reader_reports_its_bad_file_in_one_line(tmp_path, site):
    log = tmp_path / "bad.minilog.json"
    log.write_text(json.dumps({"calls": []}))
    got = citeledger(["score", str(log)], site)
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert got.stderr.strip().splitlines() == [f"citeledger: error: {log}: no answer"]


def test_a_format_from_another_distribution_renders_score(tmp_path, site):
    text = response(section("lib/a.js", " — handle(function)", size=300), section("lib/b.js", size=100))
    transcript = session(tmp_path, [text], "The fix is in lib/a.js.")

    # Without the distribution the name is refused before anything is read (so the test can fail).
    before = citeledger(["score", "--format", "tsv", str(transcript)])
    assert before.returncode == 2
    assert before.stderr.startswith("citeledger: error: --format tsv: no installed format renders score results")

    run = citeledger(["score", "--format", "tsv", str(transcript)], site)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "lib/a.js\t300\tpath\nlib/b.js\t100\t-\n"
    # It says which results it renders: explain is not among them.
    other = citeledger(["explain", "--format", "tsv", str(transcript)], site)
    assert other.returncode == 2
    assert "no installed format renders explain results (these do: " in other.stderr


def test_a_format_that_does_not_render_a_command_is_refused(tmp_path):
    transcript = session(tmp_path, [response(section("lib/a.js", size=50))], "lib/a.js")
    run = citeledger(["score", "--format", "csv", str(transcript)])
    assert run.returncode == 2
    assert run.stderr == ("citeledger: error: --format csv: no installed format renders score results "
                          "(these do: html, json, text)\n")


def test_a_plugin_installed_after_the_index_was_kept_is_found(tmp_path, site):
    """The kept plugin index (core/plugins.py) is named by every sys.path directory's state:
    installing a distribution into a directory already on the path makes it scan again."""
    import shutil

    transcript = session(tmp_path, [response(section("lib/a.js", size=300))], "The fix is in lib/a.js.")
    later = tmp_path / "later"
    later.mkdir()
    before = citeledger(["score", "--json", str(transcript)], later)
    assert before.returncode == 0, before.stderr
    assert "answer_size" not in json.loads(before.stdout)  # kept: an index without the plugin
    for entry in site.iterdir():  # the install, as pip --target lays it out
        (shutil.copytree if entry.is_dir() else shutil.copy2)(entry, later / entry.name)
    after = citeledger(["score", "--json", str(transcript)], later)
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["answer_size"] == {"texts": 1, "chars": 23}


def test_citeledger_version_lists_the_built_in_plugins_and_each_distributions_own(site):
    done = citeledger(["--version"], site)
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines[0].startswith("citeledger ")
    built_in = next(line for line in lines if line.startswith("  built-in: "))
    assert {"claude-stream", "codex", "gemini", "path", "text"} <= set(built_in.split(": ")[1].split(", "))
    theirs = next(line for line in lines if line.startswith("  from citeledger-example-plugins 0.1.0 ("))
    assert theirs.endswith("): answer_size, fetch_file, minilog, tsv")
    assert str(site) in theirs  # where it is installed
    assert lines[1] == f"plugins ({len(built_in.split(', ')) + 4}, entry-point group `citeledger`):"
