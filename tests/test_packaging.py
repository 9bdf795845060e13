"""`pip install .` and `pip install -e .` both give a working `citeledger`.

Each install goes into a fresh virtual environment; dependencies come from the
test environment's site-packages (PYTHONPATH), so only citeledger's own
packaging is under test: the package-dir mapping, the .lark grammar and YAML
rulesets as package data, the console script and the entry points.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "real" / "stream" / "express-res-send.jsonl"


@pytest.mark.parametrize("editable", [False, True], ids=["plain", "editable"])
def test_install_in_fresh_venv(tmp_path, editable):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    target = ["-e", str(ROOT)] if editable else [str(ROOT)]
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", *target],
        check=True, capture_output=True, cwd=tmp_path,
    )
    env = dict(os.environ, PYTHONPATH=sysconfig.get_paths()["purelib"])
    done = subprocess.run(
        [str(env_dir / "bin" / "citeledger"), "score", str(FIXTURE), "--json"],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert '"ruleset": "default"' in done.stdout
    where = subprocess.run(
        [str(py), "-c", "import citeledger.core, citeledger.rules, citeledger.channels; print(citeledger.core.__file__)"],
        capture_output=True, text=True, env=env, cwd=tmp_path, check=True,
    ).stdout.strip()
    if editable:
        assert where == str(ROOT / "core" / "__init__.py")
    else:
        assert where.startswith(str(env_dir)) and where.endswith("citeledger/core/__init__.py")
