"""Sweep benchmark: citeledger against the reference it replaces, on real-sized corpora, in one run.

Builds (once; kept under bench/corpus/, git-ignored) the three corpora of
bench/make_corpus.py:

- distinct: real-sized sessions (about 31 KB a file, 1-5 explore calls, the
  real mix of single, multi-turn, killed, no-explore and interactive
  sessions), every text distinct, so no cache of work across sessions helps,
  48 runs a directory;
- distinct-dirs: the same sessions, one a directory (as `run1/`, `run2/`
  output folders lie);
- abpass (the repetitive corpus): an A/B pass laid out as codegraph's harness leaves it, the same
  questions asked over and over (codegraph's responses byte-identical across
  repeats), with the explore-<arm>.jsonl sidecars.

Then, on each corpus, runs these commands interleaved --repeat times (so drift
in the machine's speed hits them alike) and reports medians:

- floor: one process that reads every transcript and orjson-decodes every line;
- reference: bench/reference.mjs, one node process doing the reference's work
  (read, parse, explore texts, final answer, allocation, text block);
- `citeledger sweep -q` with 1 job, 2 jobs, and all cores when there are more;
- `citeledger sweep -q -j 1` under 10 rulesets (bench/rulesets.py's TEN);

and prints the ratios beside issue 34's targets (distinct, both layouts: one
job <= 1.0x the reference, all cores <= 0.55x, one job / two jobs >= 1.8;
repetitive: one job <= 0.5x the reference; and issue 21's: one job <= 2.0x
floor, 10 rulesets <= 2x one), the
peak RSS of the process tree (sampled from /proc) on the whole corpus and on
a quarter of it (flat in corpus size: the two should match), and whether
`sweep --json` prints the same bytes with 1 job, with 2, and with the
worker's memo off (CITELEDGER_MEMO=off). `--baseline PYTHON` (another
checkout's venv python) adds its `sweep -j 1` and all cores to the same
rounds: before and after side by side.

Times are wall seconds of whole commands (start-up included), page cache
warm, bytecode cached as an installed tool's is. The machine may be shared:
the load average is printed at the start and the end.

    .venv/bin/python bench/run.py                         # both corpora, default sizes
    .venv/bin/python bench/run.py --sessions 2000 --passes 8 --repeat 3
    .venv/bin/python bench/run.py --only distinct --out bench/results/run.json
    .venv/bin/python bench/run.py --baseline ../base/.venv/bin/python --repeat 2
    .venv/bin/python bench/run.py --corpora ../speed/bench/corpus --only distinct --rulesets-on none

CPU times are the whole process tree's (the workers are waited for, so
wait4 counts them): parent and workers together.
"""

from __future__ import annotations

import argparse
import hashlib
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
from rulesets import TEN  # noqa: E402

PYTHON = sys.executable
CITELEDGER = [PYTHON, "-m", "citeledger.cli"]
# Commands run as an installed tool runs: with its bytecode cached. An
# environment that forbids writing .pyc files would charge every run the
# compilation of every module, which no user pays twice.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

# Issue 34's targets (its "Show"): on the distinct corpus, both layouts, one job at most the
# reference's time, all cores at most 0.55x, two jobs at least 1.8x faster than one; on the
# repetitive one (abpass), one job at most 0.5x. (Issue 21's floor and 10-ruleset bounds stay.)
TARGETS = {
    "one job / reference": ("<=", 1.0),
    "all cores / reference": ("<=", 0.55),
    "one job / two jobs": (">=", 1.8),
    "one job / floor": ("<=", 2.0),
    "10 rulesets / one": ("<=", 2.0),
}
REPETITIVE_TARGETS = {"one job / reference": ("<=", 0.5)}


def corpus(shape: str, path: Path, size: int, runs: int, seed: int) -> dict:
    marker = path / "corpus.json"
    wanted = {"shape": shape, "size": size, "runs": runs, "seed": seed, "generator": make_corpus.GENERATOR}
    if marker.exists() and json.loads(marker.read_text()).get("params") == wanted:
        return json.loads(marker.read_text())
    t = time.perf_counter()
    info = make_corpus.build(shape, path, size, runs, seed)
    info.update(params=wanted, seconds=time.perf_counter() - t)
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


def measure(cmd: list[str], stdout=None) -> dict:
    """Wall time, CPU time of the process and its waited-for children, and the sampled peak tree RSS."""
    peak = [0]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout or subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
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
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {code}")
    return {"seconds": wall, "cpu": usage.ru_utime + usage.ru_stime, "tree_rss_mb": peak[0] / 1024}


def digest(cmd: list[str], env=None) -> tuple[str, int]:
    out = subprocess.run(cmd, capture_output=True, env={**ENV, **(env or {})}, check=False).stdout
    return hashlib.sha256(out).hexdigest()[:16], len(out)


def bench_corpus(name: str, root: Path, info: dict, args) -> dict:
    d = str(root)
    parts = sorted(str(p) for p in root.iterdir() if p.is_dir())
    quarter = parts[: max(1, len(parts) // 4)]  # the same shapes, a quarter of the sessions
    mb = info["bytes"] / 1e6
    print(f"\n== {name}: {info['sessions']:,} sessions, {info['files']:,} transcript files, {mb:,.1f} MB "
          f"({info['bytes'] / info['files'] / 1e3:.1f} KB a file); load average {os.getloadavg()[0]:.2f}")
    sweep = CITELEDGER + ["sweep", "-q"]
    commands = {
        "floor": [PYTHON, str(HERE / "floor.py"), "orjson", d],
        "reference": ["node", str(HERE / "reference.mjs"), d],
        "one job": sweep + ["-j", "1", d],
        "two jobs": sweep + ["-j", "2", d],
    }
    if args.jobs > 2:
        commands[f"all cores ({args.jobs} jobs)"] = sweep + ["-j", str(args.jobs), d]
    many = f"all cores ({args.jobs} jobs)" if args.jobs > 2 else "two jobs"
    if name in args.rulesets_on:
        commands["10 rulesets, one job"] = sweep + ["-j", "1", d] + [x for r in TEN for x in ("--ruleset", r)]
    if args.baseline:
        before = [args.baseline, "-m", "citeledger.cli", "sweep", "-q"]
        commands["one job, before"] = before + ["-j", "1", d]
        commands[f"{many}, before"] = before + ["-j", str(args.jobs), d]
        measure(before + ["-j", "1", quarter[0]])  # its bytecode cache
    measure(commands["floor"])  # warms the page cache
    measure(sweep + ["-j", "1", quarter[0]])  # writes the bytecode cache
    runs: dict[str, list[dict]] = {k: [] for k in commands}
    for _ in range(args.repeat):
        for label, cmd in commands.items():
            runs[label].append(measure(cmd))
    med = {k: statistics.median(r["seconds"] for r in v) for k, v in runs.items()}
    for label in commands:
        r = runs[label]
        each = ", ".join(f"{x['seconds']:.2f}" for x in r)
        print(f"  {label:24s} {med[label]:7.2f} s  ({each}); {mb / med[label]:6.1f} MB/s, "
              f"{1e3 * med[label] / info['sessions']:.2f} ms a session, CPU {statistics.median(x['cpu'] for x in r):.2f} s, "
              f"peak RSS {max(x['tree_rss_mb'] for x in r):.0f} MB")

    def ratio(a, b, key="seconds"):  # the median of the per-round ratios: each round's runs are adjacent in time
        return statistics.median(x[key] / y[key] for x, y in zip(runs[a], runs[b]))

    # On a loaded machine wall time stretches with the load; CPU time barely
    # does, so the ratios of single-process commands are shown in CPU time too.
    cpu_ratios = {"one job / floor": ratio("one job", "floor", "cpu"),
                  "one job / reference": ratio("one job", "reference", "cpu")}

    ratios = {
        "one job / reference": ratio("one job", "reference"),
        "all cores / reference": ratio(many, "reference"),
        "one job / two jobs": ratio("one job", "two jobs"),
        "one job / floor": ratio("one job", "floor"),
    }
    if args.baseline:
        ratios["before: one job / reference"] = ratio("one job, before", "reference")
        ratios["before: all cores / reference"] = ratio(f"{many}, before", "reference")
        ratios["before: one job / two jobs"] = ratio("one job, before", f"{many}, before")
        ratios["one job, after / before"] = ratio("one job", "one job, before")
        cpu_ratios["before: one job / reference"] = ratio("one job, before", "reference", "cpu")
    if "10 rulesets, one job" in runs:
        ratios["10 rulesets / one"] = ratio("10 rulesets, one job", "one job")
        cpu_ratios["10 rulesets / one"] = ratio("10 rulesets, one job", "one job", "cpu")
    targets = REPETITIVE_TARGETS if name == "abpass" else TARGETS
    for label, value in ratios.items():
        cpu = f", CPU {cpu_ratios[label]:.2f}x" if label in cpu_ratios else ""
        if label in targets:
            op, bound = targets[label]
            met = value <= bound if op == "<=" else value >= bound
            print(f"  {label:24s} {value:7.2f}x wall{cpu}  (target {op} {bound}: {'met' if met else 'NOT met'})")
        else:
            print(f"  {label:24s} {value:7.2f}x wall{cpu}")
    memory = {}
    for jobs in (1, args.jobs):
        small = measure(sweep + ["-j", str(jobs), *quarter])
        large = max(x["tree_rss_mb"] for x in runs["one job" if jobs == 1 else many])
        memory[jobs] = {"quarter": small["tree_rss_mb"], "whole": large}
        print(f"  peak RSS -j {jobs}: a quarter ({len(quarter)} of {len(parts)} folders) {small['tree_rss_mb']:.0f} MB, "
              f"whole {large:.0f} MB (all processes)")
    one, two = (digest(CITELEDGER + ["sweep", "-q", "--json", "-j", str(j), d]) for j in (1, 2))
    off = digest(CITELEDGER + ["sweep", "-q", "--json", "-j", "1", d], {"CITELEDGER_MEMO": "off"})
    same = one == two == off
    print(f"  sweep --json, -j 1 vs -j 2 vs the memo off: {'byte-identical' if same else 'DIFFERENT'} "
          f"({one[1]:,} bytes, sha256 {one[0]} / {two[0]} / {off[0]})")
    return {"corpus": info, "seconds": {k: [x["seconds"] for x in v] for k, v in runs.items()},
            "cpu": {k: [x["cpu"] for x in v] for k, v in runs.items()}, "median": med, "ratios": ratios, "cpu_ratios": cpu_ratios,
            "peak_rss_mb": memory, "identical_json_j1_j2": same}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=7800, help="sessions of the distinct corpus (default 7800)")
    ap.add_argument("--passes", type=int, default=30, help="copies of the A/B pass (default 30)")
    ap.add_argument("--runs", type=int, default=24, help="runs per arm and group in the A/B pass (default 24)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", choices=("distinct", "distinct-dirs", "abpass"), help="one corpus only")
    ap.add_argument("--baseline", metavar="PYTHON",
                    help="another checkout's python (its venv's): its sweep -j 1 and all cores in the same rounds (before)")
    ap.add_argument("--rulesets-on", default="distinct",
                    help="corpora (comma-separated, or 'none') timed under 10 rulesets too (default: distinct)")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="all cores (default: this machine's)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of every timing; medians count (default: 3)")
    ap.add_argument("--out", help="also write the figures as JSON to this file")
    ap.add_argument("--clean", action="store_true", help="remove bench/corpus at the end")
    ap.add_argument("--corpora", default=str(HERE / "corpus"),
                    help="the folder the corpora are built in or found in, one subfolder a shape "
                    "(default: bench/corpus; another checkout's bench/corpus saves building them again)")
    args = ap.parse_args()
    args.rulesets_on = set(args.rulesets_on.split(","))

    version = subprocess.run(CITELEDGER + ["--version"], capture_output=True, text=True, env=ENV).stdout.strip()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}; node {node}; Python {sys.version.split()[0]}; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} at start; {args.repeat} rounds, medians")
    results = {"version": version, "node": node, "cores": os.cpu_count(), "load_start": os.getloadavg()[0]}
    for shape, size in (("distinct", args.sessions), ("distinct-dirs", args.sessions), ("abpass", args.passes)):
        if args.only and shape != args.only:
            continue
        root = Path(args.corpora) / shape
        info = corpus(shape, root, size, args.runs, args.seed)
        results[shape] = bench_corpus(shape, root, info, args)
    results["load_end"] = os.getloadavg()[0]
    print(f"\nload average at the end: {results['load_end']:.2f}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    if args.clean and Path(args.corpora).resolve() == (HERE / "corpus").resolve():  # never another checkout's
        shutil.rmtree(args.corpora)


if __name__ == "__main__":
    main()
