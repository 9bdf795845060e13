"""`sweep --engine dask` (infra/dask_pool.py): the same bytes as `--jobs 1`, order included, on a
LocalCluster of 2 workers; a worker killed mid-sweep still gives every session exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import citeledger
from citeledger.cli import main
from citeledger import corpus

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PATHS = [str(FIXTURES / "real"), str(FIXTURES / "pass")]


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        with Client(local) as client:
            yield local, client


def sweep_bytes(capsys, *argv) -> bytes:
    main(["sweep", *PATHS, "--json", "-q", *argv])
    return capsys.readouterr().out.encode()


def test_dask_at_an_address_writes_the_bytes_of_one_job(cluster, capsys):
    local, _ = cluster
    one = sweep_bytes(capsys, "-j1")
    assert sweep_bytes(capsys, "--engine", f"dask={local.scheduler_address}") == one
    assert one.count(b'"record":"session"') == 60


def test_dask_workers_open_urls_themselves_and_write_the_bytes_of_local_paths(cluster, capsys, monkeypatch):
    local, _ = cluster
    one = sweep_bytes(capsys, "-j1")
    monkeypatch.setattr(corpus, "CLAIMS_IN_WORKERS", 1)  # the claims' sniffs of URLs go to the workers too
    main(["sweep", *(f"file://{p}" for p in PATHS), "--json", "-q", "--engine", f"dask={local.scheduler_address}"])
    assert capsys.readouterr().out.encode() == one.replace(str(FIXTURES).encode(), f"file://{FIXTURES}".encode())


def test_a_worker_killed_mid_sweep_loses_no_session_and_repeats_none(cluster):
    local, client = cluster
    expected = list(citeledger.sweep(PATHS, jobs=1))
    pids = client.run(os.getpid)  # worker address -> its process
    got = []
    for record in citeledger.sweep(PATHS, engine=f"dask={local.scheduler_address}"):
        if not got:  # the first part is back, the rest in flight: one worker dies outright
            os.kill(next(iter(pids.values())), signal.SIGKILL)
        got.append(record)
    assert got == expected
    assert len({(r["session"], r["ruleset"]) for r in got}) == len(got) == len(expected)


def test_without_dask_the_engine_is_one_clear_error(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.modules['distributed'] = None\n")
    done = subprocess.run([sys.executable, "-m", "citeledger.cli", "sweep", PATHS[0], "--engine", "dask", "-q"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(site)})
    assert done.returncode == 2
    assert "--engine dask needs dask and distributed: pip install 'citeledger[dask]'" in done.stderr


def test_a_local_sweep_imports_nothing_of_dask_nor_fsspec():
    probe = ("import sys, contextlib, io\nfrom citeledger.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    main(['sweep', {PATHS[0]!r}, '-q', '-j2', '--json'])\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'fsspec')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_an_unknown_engine_is_refused(capsys):
    assert main(["sweep", PATHS[0], "--engine", "spark", "-q"]) == 2
    assert "--engine spark: expected local, dask or dask=SCHEDULER_ADDRESS" in capsys.readouterr().err
