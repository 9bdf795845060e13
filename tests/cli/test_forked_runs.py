"""A forked run (tests/forked_python.py, which the hostile-input and docs tests use instead of a
fresh interpreter per command) prints, exits and is bounded as `python -m citeledger.cli` is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import forked_python

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CLI = [sys.executable, "-m", "citeledger.cli"]


@pytest.mark.parametrize("argv", [
    ["score", "--json", FIXTURES / "real" / "stream" / "express-res-send.jsonl"],  # exit 0, JSON
    ["score", FIXTURES / "malformed" / "invalid-utf8.jsonl"],  # warnings on stderr
    ["score", FIXTURES / "malformed" / "empty.jsonl"],  # exit 2: an input error
    ["score", "--no-such-option"],  # argparse's SystemExit(2) and usage
    ["sweep", "-q", "--json", "--jobs", "2", FIXTURES / "real" / "stream"],  # pool workers write nothing to stdout
], ids=["json", "warnings", "input-error", "usage", "sweep-jobs-2"])
def test_a_forked_run_prints_and_exits_as_a_fresh_interpreters_run(argv, tmp_path):
    args = [*CLI, *map(str, argv)]
    fresh = subprocess.run(args, capture_output=True, cwd=tmp_path, timeout=120)
    forked = forked_python.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, timeout=120)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


def test_a_forked_run_has_the_argv_path_and_directory_python_gives(tmp_path):
    code = "import os, sys; print(sys.argv, repr(sys.path[0]), os.getcwd(), os.environ['X'])"
    env = {**os.environ, "X": "given"}
    fresh = subprocess.run([sys.executable, "-c", code, "a"], capture_output=True, cwd=tmp_path, env=env, text=True)
    forked = forked_python.run([sys.executable, "-c", code, "a"], stdout=subprocess.PIPE, cwd=tmp_path, env=env, text=True)
    assert forked.stdout == fresh.stdout == f"['-c', 'a'] '' {tmp_path} given\n"


def test_an_uncaught_exception_and_a_signal_end_a_forked_run_as_python_ends(tmp_path):
    crash = forked_python.run([sys.executable, "-c", "raise KeyError('x')"], stderr=subprocess.PIPE)
    assert crash.returncode == 1 and crash.stderr.endswith(b"KeyError: 'x'\n")
    killed = forked_python.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"])
    assert killed.returncode == -15


def test_a_forked_run_past_its_timeout_is_killed():
    with pytest.raises(subprocess.TimeoutExpired) as caught:
        forked_python.run([sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"],
                          stdout=subprocess.PIPE, timeout=1)
    assert caught.value.output == b"started\n"
    assert forked_python.run([sys.executable, "-c", "pass"], timeout=30).returncode == 0  # the server serves on


def test_a_start_up_setting_the_server_did_not_start_with_runs_in_a_real_interpreter():
    # A forked run would keep the server's hash seed; a real interpreter takes the one asked for.
    code = "import sys; print(sys.flags.hash_randomization, hash('citeledger'))"
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    done = forked_python.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    real = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == real.stdout != ""
