"""The Dask engine's overhead: `sweep --engine dask` on a LocalCluster of 2 workers against `--jobs 2`,
on the real-sized distinct corpus (bench/make_corpus.py), and the fsspec path (`file://`) against the
local one.

Commands, interleaved --repeat times (drift in the machine's speed hits them alike), medians reported:

- `sweep -q --json -j 2 CORPUS`: the local process pool (the default engine);
- `sweep -q --json --engine dask CORPUS`: the command starts its own LocalCluster of 2 single-threaded
  worker processes (cluster start-up, the rulesets sent to each worker, the parts' round trips);
- `sweep -q --json --engine dask=ADDRESS CORPUS`: a LocalCluster of 2 workers started here once, as a
  fleet's scheduler is already up: the engine's per-part overhead without the cluster's start-up
  (the workers' CPU is asked of them before and after: they are not the command's children);
- `sweep -q --json -j 2 file://CORPUS`: discovery and reading through fsspec (infra/fs.py);
- `sweep -q --json -j 1 CORPUS`: one core's throughput, the figure docs/fleet.md scales to 1 TB.

Every command's `--json` output is checked byte-identical to the local pool's (the `file://` one
but for the prefix). Times are wall seconds of whole commands (start-up included) and CPU seconds of
the command's process tree.

    .venv/bin/python bench/dask_engine.py                     # bench/corpus/distinct (built once)
    .venv/bin/python bench/dask_engine.py --corpus /tmp/distinct --repeat 3 --out bench/results/dask.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402  (corpus building and whole-command measuring, shared with bench/run.py)

SWEEP = [*run.CITELEDGER, "sweep", "-q", "--json"]


def corpus_size(root: Path) -> tuple[int, int]:
    """(transcript files, bytes) under the corpus."""
    files = [p for p in root.rglob("*.jsonl") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def worker_cpu(client) -> float:
    """CPU seconds the cluster's workers have used so far (they are not this process's children)."""
    def used():
        me = resource.getrusage(resource.RUSAGE_SELF)
        return me.ru_utime + me.ru_stime

    return sum(client.run(used).values())


def commands(root: str, address: str) -> dict[str, list[str]]:
    return {
        "-j 2 (local pool)": [*SWEEP, "-j", "2", root],
        "--engine dask (own LocalCluster)": [*SWEEP, "--engine", "dask", "-j", "2", root],
        "--engine dask=ADDRESS (cluster up)": [*SWEEP, "--engine", f"dask={address}", root],
        "-j 2 file:// (fsspec)": [*SWEEP, "-j", "2", f"file://{root}"],
        "-j 1 (one core)": [*SWEEP, "-j", "1", root],
    }


def identical(cmds: dict[str, list[str]], root: str) -> dict[str, bool]:
    """Whether each command's --json output is the local pool's (file:// but for its prefix)."""
    def digest(cmd, prefix=""):
        out = subprocess.run(cmd, capture_output=True, env=run.ENV, check=False).stdout
        return hashlib.sha256(out.replace(prefix.encode(), root.encode()) if prefix else out).hexdigest()

    base = digest(cmds["-j 2 (local pool)"])
    return {name: digest(cmd, f"file://{root}" if "file://" in name else "") == base
            for name, cmd in cmds.items() if name != "-j 2 (local pool)"}


def bench(root: str, repeat: int) -> dict:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        cmds = commands(root, cluster.scheduler_address)
        same = identical(cmds, root)
        runs: dict[str, list[dict]] = {name: [] for name in cmds}
        for _ in range(repeat):
            for name, cmd in cmds.items():
                before = worker_cpu(client) if "ADDRESS" in name else 0.0
                got = run.measure(cmd)
                if "ADDRESS" in name:
                    got["cpu"] += worker_cpu(client) - before
                runs[name].append(got)
    return {"runs": runs, "identical": same}


def report(result: dict, files: int, size: int, sessions: int) -> list[str]:
    mb = size / 1e6
    lines = [f"{sessions:,} sessions, {files:,} transcript files, {mb:.1f} MB; medians of {len(next(iter(result['runs'].values())))}"]
    medians = {}
    for name, got in result["runs"].items():
        wall = statistics.median(g["seconds"] for g in got)
        cpu = statistics.median(g["cpu"] for g in got)
        medians[name] = wall, cpu
        lines.append(f"  {name:38s} {wall:7.2f} s wall ({', '.join('%.2f' % g['seconds'] for g in got)}); "
                     f"{mb / wall:6.1f} MB/s; CPU {cpu:6.2f} s ({mb / cpu:5.1f} MB per CPU second)")
    pool = medians["-j 2 (local pool)"]
    for name in ("--engine dask (own LocalCluster)", "--engine dask=ADDRESS (cluster up)", "-j 2 file:// (fsspec)"):
        wall, cpu = medians[name]
        lines.append(f"  {name} / -j 2: {wall / pool[0]:.2f}x wall, {cpu / pool[1]:.2f}x CPU; "
                     f"output identical: {'yes' if result['identical'][name] else 'NO'}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="a corpus directory (default: bench/corpus/distinct, built once)")
    parser.add_argument("--sessions", type=int, default=7800, help="the distinct corpus's size when built")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()
    if args.corpus is None:
        args.corpus = HERE / "corpus" / "distinct"
        sessions = run.corpus("distinct", args.corpus, args.sessions, 24, 1)["sessions"]  # run.py's parameters
    else:
        sessions = None
    root = str(args.corpus.resolve())
    files, size = corpus_size(args.corpus)
    started = os.getloadavg()[0]
    t = time.perf_counter()
    result = bench(root, args.repeat)
    if sessions is None:
        out = subprocess.run([*SWEEP, "-j", "2", root], capture_output=True, env=run.ENV).stdout
        sessions = json.loads(out.split(b"\n", 1)[0])["sessions"]
    lines = [f"2 cores; load average {started:.2f} at start, {os.getloadavg()[0]:.2f} at the end; "
             f"{time.perf_counter() - t:.0f} s in all", *report(result, files, size, sessions)]
    print("\n".join(lines))
    if args.out:
        args.out.write_text(json.dumps({"corpus": root, "files": files, "bytes": size, "sessions": sessions,
                                        **result, "report": lines}, indent=1))


if __name__ == "__main__":
    main()
