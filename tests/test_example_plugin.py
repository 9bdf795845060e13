"""A third-party channel package, installed into a fresh virtual environment, is used.

The fresh environment gets citeledger (from a copy of this checkout) and
examples/citeledger-example-channel, both with --no-deps; their dependencies
(attrs, pluggy, ...) come from the environment running the tests through a
.pth file. The build runs offline when that environment can build a wheel,
else pip fetches setuptools into an isolated build environment.
"""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

from builders import response, section, session

from citeledger.cli import main

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "citeledger-example-channel"
PACKAGE_PARTS = ("pyproject.toml", "README.md", "core", "channels", "sources", "rules", "rulesets", "report", "cli")

RULESET = """\
extends: default
channels:
  rank: [path, symbol, stem]
  stem:
    min_length: 5
    ignore: [index, utils]
"""


def fresh_env(root: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(root)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    # Dependencies only: appended after the fresh site-packages, so the fresh
    # installs of citeledger and the example win.
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib) / "_test_deps.pth").write_text("\n".join(deps) + "\n")
    return python


def can_build_offline() -> bool:
    """setuptools can build a wheel here: it has bdist_wheel (>= 70.1) or `wheel` is installed."""
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    if (major, minor) >= (70, 1):
        return True
    try:
        import wheel  # noqa: F401
    except ImportError:
        return False
    return True


def pip_install(python: Path, source: Path) -> None:
    # Offline when this environment can build; otherwise pip fetches the build
    # backend from the package index into an isolated build environment.
    flags = ["--no-build-isolation", "--no-index"] if can_build_offline() else []
    run = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", *flags, str(source)],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]


def test_installed_example_channel_credits_a_file(tmp_path):
    # lib/router/layer.js is named only as "the layer module": path and symbol miss it.
    text = response(
        section("lib/response.js", " — sendFile(function)", size=300),
        section("lib/router/layer.js", " — handle_error(function)", size=200),
        section("lib/router/index.js", size=100),
    )
    transcript = session(tmp_path, [text], "lib/response.js hands errors to the layer module's error handler.")
    rules = tmp_path / "stem.yaml"
    rules.write_text(RULESET)

    # Without the package, the ruleset names an unknown channel (so the test can fail).
    assert main(["score", "--ruleset", str(rules), str(transcript)]) == 2

    source = tmp_path / "citeledger-src"
    source.mkdir()
    for part in PACKAGE_PARTS:
        src = REPO / part
        if src.is_dir():
            shutil.copytree(src, source / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, source / part)
    example = tmp_path / "example-src"
    shutil.copytree(EXAMPLE, example, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))

    python = fresh_env(tmp_path / "env")
    pip_install(python, source)
    pip_install(python, example)
    run = subprocess.run(
        [tmp_path / "env" / "bin" / "citeledger", "score", "--ruleset", str(rules), "--json", str(transcript)],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["channels"] == ["path", "symbol", "stem"]
    channels = {f["path"]: (f["channel"], f["evidence"]) for f in data["files"]}
    # response.js by path; layer.js by the plugin's stem channel; index.js is ignored.
    assert channels == {
        "lib/response.js": ("path", "lib/response.js"),
        "lib/router/layer.js": ("stem", "layer"),
        "lib/router/index.js": (None, None),
    }
    assert (data["used"], data["envelope"]) == (300 + 200, 600)
    assert data["used_by_channel"] == {"path": 300, "symbol": 0, "stem": 200}
    # The installed citeledger is the fresh one, not this checkout.
    where = subprocess.run(
        [python, "-c", "import citeledger.core, sys; print(citeledger.core.__file__)"],
        check=True, capture_output=True, text=True,
    ).stdout
    assert str(tmp_path / "env") in where and sys.prefix not in where
