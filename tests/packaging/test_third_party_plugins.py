"""Plugins added by a third party, each one module and its entry point, in one throwaway
distribution installed (pip install --target) beside this checkout: a metric (a figure
beside the score in `score --json`), written only against `citeledger.core`'s names,
registered exactly as the built-ins are."""

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

[tool.setuptools]
py-modules = ["citeledger_answer_size"]
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


def citeledger(args, site=None):
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "citeledger.cli", *args], capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The distribution, built from its source and installed into a directory of its own."""
    root = tmp_path_factory.mktemp("third-party")
    source = root / "src"
    source.mkdir()
    (source / "pyproject.toml").write_text(PYPROJECT)
    (source / "citeledger_answer_size.py").write_text(METRIC)
    target = root / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                              str(source)], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-2000:]
    return target


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
