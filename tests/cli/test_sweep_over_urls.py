"""Sweeps and scores of logs behind a URL (infra/fs.py, fsspec): `memory://` and `file://` give the
bytes the local path gives, but for the prefix every path carries; segments and an interactive
log's subagents are grouped as on disk; outputs to a URL and URLs without fsspec are one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import fsspec
import pytest

from citeledger.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LOCAL = f"{FIXTURES}/"  # every local path below starts so
BUCKET = "memory://citeledger-fleet-test/"
FLASK = "real/stream/flask-views"  # two segments: flask-views.jsonl and flask-views.t2.jsonl
INTERACTIVE = "real/interactive/-tmp-proj-express/6f1c2a0e-3b7d-4c55-9e1a-2d4f8b7c9a10"


@pytest.fixture(scope="module")
def bucket():
    """tests/fixtures/real and pass copied into fsspec's in-memory filesystem (this process's,
    inherited by the forked workers of --jobs)."""
    memory = fsspec.filesystem("memory")
    for name in ("real", "pass"):
        for path in (FIXTURES / name).rglob("*"):
            if path.is_file():
                memory.pipe_file(f"/citeledger-fleet-test/{path.relative_to(FIXTURES)}", path.read_bytes())
    yield BUCKET
    memory.rm("/citeledger-fleet-test", recursive=True)


def output(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def local_sweep():
    """`sweep --json` of the two fixtures by their local paths (run once: a module's reference)."""
    done = subprocess.run([sys.executable, "-m", "citeledger.cli", "sweep", LOCAL + "real", LOCAL + "pass",
                           "--json", "-q", "-j1"], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr  # two fixtures are truncated on purpose: warnings
    return done.stdout


@pytest.mark.parametrize("scheme, jobs", [("memory", "2"), ("file", "1")])
def test_a_sweep_of_urls_writes_the_local_bytes_but_for_the_prefix(bucket, local_sweep, capsys, scheme, jobs):
    prefix = bucket if scheme == "memory" else f"file://{LOCAL}"
    code, out, err = output(capsys, "sweep", prefix + "real", prefix + "pass", "--json", "-q", "-j", jobs)
    assert code == 1
    assert out == local_sweep.replace(LOCAL, prefix)
    assert out.count('"record":"session"') == 60 and prefix + "pass/cg22/ab-express/explore-new.jsonl" in out
    assert err.splitlines()[0] == f"citeledger: warning: {prefix}real/stream/fastify-killed.jsonl:4: not JSON (truncated), skipped"


def test_segments_and_subagents_behind_a_url_are_grouped_as_on_disk(bucket, capsys):
    _, out, _ = output(capsys, "sweep", bucket + "real", "--json", "-q", "-j1")
    inputs = {r["session"]: r["inputs"] for r in map(json.loads, out.splitlines()) if r["record"] == "session"}
    assert inputs["stream/flask-views.jsonl"] == [f"{bucket}{FLASK}.jsonl", f"{bucket}{FLASK}.t2.jsonl"]
    assert inputs[INTERACTIVE.removeprefix("real/") + ".jsonl"] == [
        f"{bucket}{INTERACTIVE}.jsonl", f"{bucket}{INTERACTIVE}/subagents/agent-a7e3c19.jsonl"]


@pytest.mark.parametrize("argv", [[f"{FLASK}.t2.jsonl"], ["--session", f"{INTERACTIVE}.jsonl"]],
                         ids=["a segment completed to its session", "an interactive log and its subagents"])
def test_a_score_of_a_url_is_the_local_score(bucket, capsys, argv):
    *flags, path = argv
    code, local, _ = output(capsys, "score", *flags, LOCAL + path, "--json")
    assert code == 0
    code, remote, _ = output(capsys, "score", *flags, bucket + path, "--json")
    assert code == 0
    assert remote == local.replace(LOCAL, bucket)
    assert len(json.loads(remote)["inputs"]) == 2  # both segments, or the log and its subagent's


@pytest.mark.parametrize("option", ["--out", "--html", "--diagnostics-out"])
def test_an_output_to_a_url_is_refused_in_one_line(capsys, option):
    code, _, err = output(capsys, "sweep", LOCAL + "real", option, "s3://bucket/report", "-q")
    assert code == 2
    assert err == (f"citeledger: error: {option} s3://bucket/report: outputs are written to a local path only "
                   "(write them here, then copy them to the bucket)\n")


def test_a_url_no_fsspec_backend_reads_is_one_line_naming_it(capsys):
    code, _, err = output(capsys, "sweep", "nosuchscheme://bucket/logs", "-q")
    assert code == 2
    assert err == "citeledger: error: nosuchscheme://bucket/logs: no fsspec backend for this URL: Protocol not known: nosuchscheme\n"


def test_without_fsspec_a_url_is_one_line_naming_it_and_local_paths_still_score(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.modules['fsspec'] = None\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    cli = [sys.executable, "-m", "citeledger.cli"]
    for argv in (["sweep", BUCKET + "real", "-q"], ["score", BUCKET + FLASK + ".jsonl"]):
        done = subprocess.run(cli + argv, capture_output=True, text=True, env=env)
        assert (done.returncode, done.stderr) == (2, f"citeledger: error: {argv[1]}: a URL is read through fsspec, "
                                                     "which is not installed: pip install 'citeledger[fsspec]'\n")
    done = subprocess.run(cli + ["score", LOCAL + FLASK + ".jsonl"], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and "efficiency" in done.stdout.lower()
