"""A report format added by a third party: one module and its entry point, in a throwaway
distribution installed (pip install --target) beside this checkout, then chosen with
`citeledger score --format NAME`."""

from __future__ import annotations

import os
import subprocess
import sys

from builders import response, section, session

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "citeledger-tsv-format"
version = "0.1.0"
dependencies = ["citeledger"]

[project.entry-points.citeledger]
tsv = "citeledger_tsv_format"

[tool.setuptools]
py-modules = ["citeledger_tsv_format"]
"""

MODULE = '''\
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


def citeledger(args, site=None):
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "citeledger.cli", *args], capture_output=True, text=True, env=env)


def test_a_format_from_another_distribution_renders_score(tmp_path):
    text = response(section("lib/a.js", " — handle(function)", size=300), section("lib/b.js", size=100))
    transcript = session(tmp_path, [text], "The fix is in lib/a.js.")

    # Without the distribution the name is refused before anything is read (so the test can fail).
    before = citeledger(["score", "--format", "tsv", str(transcript)])
    assert before.returncode == 2
    assert before.stderr.startswith("citeledger: error: --format tsv: no installed format renders score results")

    source = tmp_path / "src"
    source.mkdir()
    (source / "pyproject.toml").write_text(PYPROJECT)
    (source / "citeledger_tsv_format.py").write_text(MODULE)
    site = tmp_path / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                              str(source)], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-2000:]

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
