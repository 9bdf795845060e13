"""Fresh virtual environments for the packaging tests, and a copy of this checkout to install.

An environment is made without pip (ensurepip costs seconds per environment):
the test environment's pip installs into it with `--python`. Its dependencies
(attrs, pluggy, ...) come from the environment running the tests through a
.pth file appended after the fresh site-packages, so what is installed fresh
wins and only citeledger's own packaging is under test.
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE_PARTS = ("pyproject.toml", "README.md", "api", "core", "corpus", "engine", "infra", "harness", "readers", "channels", "sources",
                 "metrics", "rules", "rulesets", "report", "cli")


def fresh_env(root: Path) -> Path:
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib) / "_test_deps.pth").write_text("\n".join(deps) + "\n")
    return python


def pip_install(python: Path, *target: str, isolated: bool = True) -> None:
    """`pip install --no-deps TARGET...` into `python`'s environment, building as a user's pip does
    (`isolated`), or with the test environment's setuptools: a throwaway plugin distribution's
    build is not under test, and an isolated build environment costs about 2 s to make."""
    run = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         *([] if isolated else ["--no-build-isolation"]), *target],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]


def copy_checkout(dest: Path) -> Path:
    """The package's files only: a build writes build/ and *.egg-info into its source, and
    parallel tests must not share those in the repository."""
    dest.mkdir()
    for part in PACKAGE_PARTS:
        src = REPO / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / part)
    return dest
