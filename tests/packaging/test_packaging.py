"""`pip install .` and `pip install -e .` both give a working `citeledger`.

Each install goes into a fresh virtual environment (tests/fresh_env.py);
dependencies come from the test environment's site-packages, so only
citeledger's own packaging is under test: the package-dir mapping, the .lark
grammar and YAML rulesets as package data, the console script and the entry
points. The plain install is the environment test_example_plugin also uses.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


from fresh_env import REPO, fresh_env, pip_install

FIXTURE = REPO / "tests" / "fixtures" / "real" / "stream" / "express-res-send.jsonl"


def check_install(env_dir: Path, cwd: Path) -> str:
    """`citeledger score --json` and `citeledger.score` run from the environment; where its citeledger.core lives."""
    done = subprocess.run(
        [str(env_dir / "bin" / "citeledger"), "score", str(FIXTURE), "--json"],
        capture_output=True, text=True, cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    assert '"ruleset": "default"' in done.stdout
    status, where = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c",
         "import sys, citeledger, citeledger.core, citeledger.rules, citeledger.channels, citeledger.report; "
         "print(citeledger.score(sys.argv[1]).status); print(citeledger.core.__file__)", str(FIXTURE)],
        capture_output=True, text=True, cwd=cwd, check=True,
    ).stdout.split()
    assert status == "scored"  # the Python API at the package's top, as installed
    return where


def test_plain_install_in_fresh_venv(installed_env, tmp_path):
    where = check_install(installed_env, tmp_path)
    assert where.startswith(str(installed_env)) and where.endswith("citeledger/core/__init__.py")


def test_editable_install_in_fresh_venv(tmp_path):
    env_dir = tmp_path / "venv"
    # Built with the test environment's setuptools: the README's own `pip install -e`, which made
    # that environment, already built it in isolation; the plain install above keeps an isolated build.
    pip_install(fresh_env(env_dir), "-e", str(REPO), isolated=False)
    assert check_install(env_dir, tmp_path) == str(REPO / "core" / "__init__.py")
