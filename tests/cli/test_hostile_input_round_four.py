"""Hostile input, round four (issue 32, the items outside the readers): each test is named for
what the attacker did. The commands run in a subprocess under the round-one memory cap and hang
guard (test_hostile_input.run); scale cases compare the CPU time of two input sizes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import explored, response, section, write_jsonl
from test_hostile_input import err, run

FIFO_REFUSED = "not a regular file (a FIFO), not read"


def _session(path: Path, *paths: str, answer: str = "see lib/a.js") -> Path:
    rows = explored("t1", "q", response(*(section(p, body="x\n") for p in paths)))
    return write_jsonl(path, [*rows, {"type": "result", "subtype": "success", "result": answer}])


@pytest.mark.parametrize("command", ["score", "explain"])
@pytest.mark.parametrize("fifo_first", [False, True])
def test_a_fifo_among_the_files_given_is_refused_as_a_lone_fifo_is(tmp_path, command, fifo_first):
    given = _session(tmp_path / "run.jsonl", "lib/a.js")
    fifo = tmp_path / "other.jsonl"
    os.mkfifo(fifo)
    files = [fifo, given] if fifo_first else [given, fifo]
    result = run(command, *files, timeout=60)  # before: blocked reading the FIFO's session id
    assert result.returncode == 2
    assert err(result) == f"citeledger: error: {fifo}: {FIFO_REFUSED}\n"


def _sessions(root: Path, count: int, files: int) -> Path:
    root.mkdir()
    for s in range(count):
        _session(root / f"run{s}.jsonl", *(f"lib/d{s}/f{i}.js" for i in range(files)), answer="see lib/d1/f1.js")
    return root


def test_a_reader_that_leaves_after_ten_bytes_of_a_sweep_is_exit_2_every_time(tmp_path):
    # 4x a Linux pipe's 64 KiB: the reader leaves while a write is under way (the short write
    # CPython took for the whole, exit 0 with no word, in 2 of 5 runs before).
    corpus = _sessions(tmp_path / "corpus", 40, 200)
    for _ in range(5):
        proc = subprocess.Popen([sys.executable, "-m", "citeledger.cli", "sweep", "-q", "--json", str(corpus)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        head = proc.stdout.read(10)
        proc.stdout.close()  # as `| head -c 10` does
        stderr = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 2, stderr
        assert head == b'{"record":'
        assert stderr.endswith("citeledger: error: <stdout>: cannot write: the reader closed it (broken pipe)\n")
