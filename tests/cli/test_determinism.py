"""The same corpus gives byte-identical JSON and CSV for any --jobs, on reruns,
and whatever Python's hash seed (set order must never reach the output)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.cli import main

HERE = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Real transcripts (stream, multi-segment, interactive) and the malformed ones."""
    root = tmp_path_factory.mktemp("corpus")
    shutil.copytree(HERE / "fixtures" / "real" / "stream", root / "stream")
    shutil.copytree(HERE / "fixtures" / "real" / "interactive", root / "interactive")
    shutil.copytree(HERE / "fixtures" / "malformed", root / "malformed", ignore=shutil.ignore_patterns("*.md"))
    os.symlink(root / "nowhere", root / "malformed" / "gone.jsonl")
    return root


def sweep(corpus: Path, fmt: str, jobs: int, seed: str) -> bytes:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    args = [sys.executable, "-m", "citeledger.cli", "sweep", str(corpus), fmt, "--quiet", "--jobs", str(jobs),
            "--ruleset", "default", "--ruleset", "corrected"]
    proc = subprocess.run(args, capture_output=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stderr  # the malformed inputs warn
    return proc.stdout


@pytest.mark.parametrize("fmt", ["--json", "--csv"])
def test_output_is_byte_identical_for_any_jobs_and_reruns(corpus, fmt):
    first = sweep(corpus, fmt, 1, "0")
    assert first.count(b"\n") > 5
    for jobs, seed in [(1, "1"), (2, "2"), (3, "3"), (2, "random")]:
        assert sweep(corpus, fmt, jobs, seed) == first, (jobs, seed)


def test_out_directory_is_byte_identical(corpus, tmp_path, capsys):
    outputs = []
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}"
        assert main(["sweep", str(corpus), "--quiet", "--jobs", str(jobs), "--out", str(out)]) == 1
        outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    capsys.readouterr()
    assert outputs[0] == outputs[1] and len(outputs[0]) >= 2


def test_score_json_is_identical_on_reruns(capsys):
    path = str(HERE / "fixtures" / "real" / "stream" / "express-res-send.jsonl")
    runs = []
    for _ in range(2):
        assert main(["score", "--json", path]) == 0
        runs.append(capsys.readouterr().out)
    assert runs[0] == runs[1]
