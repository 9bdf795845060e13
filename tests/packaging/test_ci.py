"""CI runs the README's setup and test command under the oldest, the newest and the default Python."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
SETUP = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]'"
TEST = ".venv/bin/python -m pytest"


def _ci_steps() -> list[str]:
    return [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()
            if line.strip() and not line.strip().startswith("#")]


def test_ci_runs_the_readmes_commands_on_the_oldest_and_newest_supported_python():
    steps = _ci_steps()
    readme = (REPO / "README.md").read_text()
    assert f"    {TEST}\n" in readme and SETUP in readme
    oldest = re.search(r'requires-python = ">=(\d+\.\d+)"', (REPO / "pyproject.toml").read_text()).group(1)
    loop = next(s for s in steps if s.startswith("for version in"))
    versions = re.fullmatch(r"for version in (.*); do", loop).group(1).split()
    assert versions == [oldest, "3.13"]
    # Each interpreter: a fresh .venv, the README's install, the README's test command.
    assert sum(TEST == s for s in steps) == 2  # once in the loop, once for the default python3
    assert steps[-2].endswith(SETUP.split("&& ", 1)[1]) and steps[-2].startswith("rm -rf .venv && python3 -m venv .venv")
    assert steps[-1] == TEST


def test_version_names_the_python_and_each_required_library_with_its_version():
    import platform
    import subprocess
    import sys
    from importlib import metadata

    out = subprocess.run([sys.executable, "-m", "citeledger.cli", "--version"], capture_output=True, text=True,
                         check=True).stdout
    first, *plugins = out.splitlines()  # the runtime on one unwrapped line; the plugins after it (issue 44)
    assert first.startswith("citeledger ") and plugins[0].startswith("plugins (")
    assert f"{platform.python_implementation()} {platform.python_version()};" in first
    for name in ("lark", "google-re2", "orjson", "pluggy", "attrs", "pyyaml"):
        assert f"{name} {metadata.version(name)}" in first
