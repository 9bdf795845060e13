"""Shared test setup: hypothesis profiles, the fresh environment the install tests share, and
the headless browser the HTML tests share.

`ci` (the default) is derandomized so every run explores the same examples and
a failure reproduces anywhere; `dev` searches wider with fresh randomness.
Pick one with HYPOTHESIS_PROFILE=dev.
"""

import os
import sys
from pathlib import Path

# Bytecode is written for this run even where the environment says not to
# (PYTHONDONTWRITEBYTECODE, set on some CI machines): each xdist worker and every
# command a test starts would otherwise compile citeledger and the test modules from
# source again, about 6 s of a run. Before any other import, and in os.environ so the
# workers and commands started after this inherit it.
if sys.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE"):
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False

import pytest
from hypothesis import HealthCheck, settings

# Tests live in folders mirroring the packages (tests/core, tests/cli, ...); the
# helper modules they share (builders, browser, fresh_env, page_fit) stay here.
# Each folder is on the path too, as pytest puts a test file's own folder, so a
# test importing another's hand-worked data (`from test_differential import ...`)
# finds it whichever worker collected what first.
_TESTS = Path(__file__).resolve().parent
for _folder in [_TESTS, *sorted(p for p in _TESTS.iterdir() if p.is_dir() and any(p.glob("test_*.py")))]:
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "dev",
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The files citeledger keeps between runs (infra/cache.py) go to a directory of
# this test run's own, in this process and every command it starts, never the
# user's ~/.cache.
if "CITELEDGER_TEST_CACHE" not in os.environ:
    import atexit
    import shutil
    import tempfile

    os.environ["CITELEDGER_TEST_CACHE"] = os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="citeledger-cache-")
    atexit.register(shutil.rmtree, os.environ["CITELEDGER_TEST_CACHE"], True)

def built_once(tmp_path_factory, name: str, build) -> Path:
    """`build(root)` run once per test run into RUN_TMP/name, by whichever xdist worker asks
    first (a lock in the run's temporary directory, which the workers share); a failed
    attempt's leftovers are removed before the next."""
    import fcntl
    import shutil

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's directory; each worker's basetemp is below it
    root = base / name
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "complete").exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            build(root)
            (root / "complete").touch()
    return root


@pytest.fixture(scope="session")
def installed_env(tmp_path_factory):
    """One fresh virtual environment holding citeledger (`pip install .` of a copy of this
    checkout) and examples/citeledger-example-channel, shared by test_packaging's plain
    install and test_example_plugin, built once per run."""
    import shutil

    from fresh_env import REPO, copy_checkout, fresh_env, pip_install

    def build(root):
        python = fresh_env(root / "env")
        example = root / "example-src"
        shutil.copytree(REPO / "examples" / "citeledger-example-channel", example,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        pip_install(python, str(copy_checkout(root / "citeledger-src")))  # citeledger's packaging: as a user's pip builds
        pip_install(python, str(example), isolated=False)

    return built_once(tmp_path_factory, "installed", build) / "env"


@pytest.fixture(scope="session")
def browser():
    """One headless chromium (tests/browser.py) for every HTML test of this process: each test
    opens its own page (a target of its own, whose events are its own); a start costs seconds."""
    from browser import INSTALL, Browser, chromium_path

    try:
        chromium_path()
    except RuntimeError:
        pytest.fail(INSTALL, pytrace=False)
    shared = Browser()
    yield shared
    shared.close()
