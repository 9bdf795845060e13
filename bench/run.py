"""Sweep benchmark: citeledger against the reference it replaces, in one run.

Builds (once) a small and a large corpus from the real fixtures under
bench/corpus/ (git-ignored; bench/make_corpus.py: every title, header,
response end and answer is tagged per session and copy, so no two texts are
equal and no cache of repeated work can help), then measures, interleaved,
--repeat times, and reports the median of each:

- floor: one process that reads every file and orjson-decodes every line;
- reference: bench/reference.mjs, one node process doing the reference's
  work (read, parse, explore texts, final answer, allocation, text block);
- `citeledger sweep -q` with 1 job and with all cores;
- the ratios: one job / floor (target <= 2.0), all cores / reference
  (target <= 0.5), one job / reference;
- peak RSS of the process tree (sampled from /proc) on both corpora, 1 job
  and all cores (target: flat in corpus size).

Times are wall seconds of whole commands (start-up included), the page cache
warm. The machine may be shared: the runs alternate, so drift in its speed
hits every command alike, and the median of the ratios is reported.

    .venv/bin/python bench/run.py                          # 100 MB and 400 MB
    .venv/bin/python bench/run.py --small-mb 20 --large-mb 80 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_corpus  # noqa: E402

PYTHON = sys.executable
CITELEDGER = [PYTHON, "-m", "citeledger.cli"]
# Commands run as an installed tool runs: with its bytecode cached. An
# environment that forbids writing .pyc files would charge every run the
# compilation of every module (about 50 ms here), which no user pays twice.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def corpus(path: Path, sessions: int, min_bytes: int) -> dict:
    marker = path / "corpus.json"
    wanted = {"sessions": sessions, "min_bytes": min_bytes, "generator": 2}
    if marker.exists() and json.loads(marker.read_text()).get("params") == wanted:
        return json.loads(marker.read_text())
    if path.exists():
        shutil.rmtree(path)
    t = time.perf_counter()
    count, written = make_corpus.build(path, sessions, min_bytes)
    info = {"params": wanted, "sessions": count, "bytes": written, "seconds": time.perf_counter() - t}
    marker.write_text(json.dumps(info))
    return info


def tree_rss_kb(pid: int) -> int:
    """RSS of a process and all its descendants, from /proc."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    stack += [int(c) for c in fh.read().split()]
        except (OSError, ValueError):
            continue
    return total


def measure(cmd: list[str]) -> dict:
    """Wall time, the process's own peak RSS (ru_maxrss) and the sampled peak tree RSS."""
    peak = [0]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_kb(proc.pid))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    cpu = usage.ru_utime + usage.ru_stime  # includes the waited-for pool workers
    return {"seconds": wall, "cpu": cpu, "maxrss_mb": usage.ru_maxrss / 1024, "tree_rss_mb": peak[0] / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small-mb", type=float, default=100)
    ap.add_argument("--large-mb", type=float, default=400)
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--repeat", type=int, default=5, help="rounds of every timing; medians count (default: 5)")
    ap.add_argument("--clean", action="store_true", help="remove bench/corpus at the end")
    args = ap.parse_args()

    built = {}
    for name, mb in (("small", args.small_mb), ("large", args.large_mb)):
        built[name] = corpus(HERE / "corpus" / name, 1, int(mb * 1e6))
    small_dir, large_dir = str(HERE / "corpus" / "small"), str(HERE / "corpus" / "large")
    large = built["large"]
    mb = large["bytes"] / 1e6
    version = subprocess.run(CITELEDGER + ["--version"], capture_output=True, text=True, env=ENV).stdout.strip()
    print(f"{version}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    print(f"corpus large: {large['sessions']} sessions, {mb:,.1f} MB; small: {built['small']['sessions']} sessions, "
          f"{built['small']['bytes'] / 1e6:,.1f} MB (every text distinct)")

    commands = {
        "floor": [PYTHON, str(HERE / "floor.py"), "orjson", large_dir],
        "reference": ["node", str(HERE / "reference.mjs"), large_dir],
        "one job": CITELEDGER + ["sweep", large_dir, "-q", "-j", "1"],
        f"all cores ({args.jobs} jobs)": CITELEDGER + ["sweep", large_dir, "-q", "-j", str(args.jobs)],
    }
    measure(commands["floor"])  # warms the page cache
    measure(CITELEDGER + ["sweep", small_dir, "-q", "-j", "1"])  # writes the bytecode cache
    runs: dict[str, list[dict]] = {k: [] for k in commands}
    for _ in range(args.repeat):
        for name, cmd in commands.items():
            runs[name].append(measure(cmd))
    med = {k: statistics.median(r["seconds"] for r in v) for k, v in runs.items()}
    many = f"all cores ({args.jobs} jobs)"
    for name in commands:
        r = runs[name]
        each = ", ".join(f"{x['seconds']:.2f}" for x in r)
        print(f"{name:22s} {med[name]:6.2f} s  ({each}), "
              f"{mb / med[name]:,.0f} MB/s, peak RSS {statistics.median(x['tree_rss_mb'] for x in r):.0f} MB")

    def ratio(a, b):  # the median of the per-round ratios: each round's runs are adjacent in time
        return statistics.median(x["seconds"] / y["seconds"] for x, y in zip(runs[a], runs[b]))

    print(f"one job / floor:         {ratio('one job', 'floor'):5.2f}x   (target <= 2.0)")
    print(f"all cores / reference:   {ratio(many, 'reference'):5.2f}x   (target <= 0.5)")
    print(f"one job / reference:     {ratio('one job', 'reference'):5.2f}x")
    for jobs in (1, args.jobs):
        small = [measure(CITELEDGER + ["sweep", small_dir, "-q", "-j", str(jobs)]) for _ in range(2)]
        big = runs["one job" if jobs == 1 else many]
        print(f"peak RSS -j {jobs}: small {max(x['tree_rss_mb'] for x in small):.0f} MB, "
              f"large {max(x['tree_rss_mb'] for x in big):.0f} MB (all processes; max of the runs)")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if args.clean:
        shutil.rmtree(HERE / "corpus")


if __name__ == "__main__":
    main()
