"""Windows: the command line imports, scores and sweeps into --out without `fcntl` and without
`signal.SIGHUP` (infra/locks.py, infra/signals.py).

The child runs with a sitecustomize that hides both, as Windows's Python lacks
them, and puts in a stand-in `msvcrt` whose `locking` is a byte lock (POSIX
lockf, taken before fcntl is hidden), raising EACCES when held as msvcrt does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RUN = FIXTURES / "real" / "stream" / "express-res-send.jsonl"

HIDE = '''
import errno, os, signal, sys, types
import fcntl as _posix
sys.modules["fcntl"] = None  # import fcntl raises ImportError
del signal.SIGHUP
def stub():
    msvcrt = types.ModuleType("msvcrt")
    msvcrt.LK_NBLCK = 2
    def locking(fd, mode, nbytes):
        with open(os.environ["LOCK_CALLS"], "a") as fh:
            fh.write(f"{mode} {nbytes} {os.lseek(fd, 0, os.SEEK_CUR)}\\n")
        try:
            _posix.lockf(fd, _posix.LOCK_EX | _posix.LOCK_NB, nbytes)
        except OSError:
            raise OSError(errno.EACCES, "Permission denied") from None
    msvcrt.locking = locking
    sys.modules["msvcrt"] = msvcrt
if os.environ.get("STUB_MSVCRT"):
    stub()
'''


@pytest.fixture
def windowsish(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(HIDE)
    env = {**os.environ, "PYTHONPATH": str(site), "LOCK_CALLS": str(tmp_path / "locks.txt")}

    def run(*argv, msvcrt=True):
        probe = ("import sys, runpy; sys.argv = ['citeledger', *sys.argv[1:]]\n"
                 "try:\n    runpy.run_module('citeledger.cli', run_name='__main__')\n"
                 "finally:\n    print('FCNTL', sys.modules.get('fcntl'), file=sys.stderr)\n")
        return subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                              env={**env, "STUB_MSVCRT": "1" if msvcrt else ""}, cwd=tmp_path)

    return run, tmp_path


def test_the_command_line_imports_and_scores_without_fcntl_or_sighup(windowsish):
    run, _ = windowsish
    done = run("score", str(RUN), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "scored"
    assert "FCNTL None" in done.stderr  # still hidden at the end: nothing imported the real one
    assert run("--help").returncode == 0


def test_sweep_out_takes_the_lock_through_msvcrt(windowsish):
    run, tmp = windowsish
    done = run("sweep", str(FIXTURES / "real"), "-q", "-j1", "--out", str(tmp / "out"))
    assert done.returncode == 1, done.stderr  # 1: the fixtures hold unscored sessions
    assert (tmp / "out" / "sweep.jsonl").is_file() and (tmp / "out" / "calls.csv").is_file()
    assert (tmp / "locks.txt").read_text() == "2 1 0\n"  # one non-blocking lock of byte 0
    assert not any(p.name.startswith(".citeledger") for p in (tmp / "out").iterdir())  # lock file removed


def test_a_held_lock_is_refused_through_msvcrt(windowsish):
    import fcntl

    run, tmp = windowsish
    out = tmp / "out"
    out.mkdir()
    from citeledger.cli.output import LOCK

    with open(out / LOCK, "w") as fh:
        fcntl.lockf(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB, 1)  # another run holds byte 0
        done = run("sweep", str(FIXTURES / "real"), "-q", "-j1", "--out", str(out))
    assert done.returncode == 2
    assert "another citeledger run is writing into this directory" in done.stderr


def test_a_sweep_on_workers_needs_neither(windowsish, capsys):
    """Without the msvcrt stand-in (multiprocessing takes a module named msvcrt for Windows)."""
    from citeledger.cli import main

    run, _ = windowsish
    done = run("sweep", str(FIXTURES / "real"), "-q", "-j2", "--json", msvcrt=False)
    assert done.returncode == 1, done.stderr
    main(["sweep", str(FIXTURES / "real"), "-q", "-j1", "--json"])
    assert done.stdout == capsys.readouterr().out


def test_without_any_file_lock_out_is_one_clear_error(windowsish):
    run, tmp = windowsish
    done = run("sweep", str(FIXTURES / "real"), "-q", "-j1", "--out", str(tmp / "out"), msvcrt=False)
    assert done.returncode == 2
    assert "no file locking on this platform (neither fcntl nor msvcrt)" in done.stderr
