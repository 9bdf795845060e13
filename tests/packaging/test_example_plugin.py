"""A third-party channel package, installed into a fresh virtual environment, is used.

The fresh environment (conftest's `installed_env`, shared with test_packaging)
gets citeledger (from a copy of this checkout) and
examples/citeledger-example-channel, both with --no-deps; their dependencies
(attrs, pluggy, ...) come from the environment running the tests through a
.pth file (tests/fresh_env.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

from builders import response, section, session

from citeledger.cli import main

RULESET = """\
extends: default
channels:
  rank: [path, symbol, stem]
  stem:
    min_length: 5
    ignore: [index, utils]
"""


def test_installed_example_channel_credits_a_file(installed_env, tmp_path):
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

    env = installed_env
    run = subprocess.run(
        [env / "bin" / "citeledger", "score", "--ruleset", str(rules), "--json", str(transcript)],
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
        [env / "bin" / "python", "-c", "import citeledger.core, sys; print(citeledger.core.__file__)"],
        check=True, capture_output=True, text=True,
    ).stdout
    assert str(env) in where and sys.prefix not in where
