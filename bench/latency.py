"""One run, the way codegraph's harness calls a scorer: `citeledger score RUN` against node on the same file.

run-all.sh calls `node parse-run.mjs run.jsonl` once after each run; the
node side here is tests/oracle/reference.mjs (the spec transcribed: the same
read, parse, allocation and text block) given the same file. Each round runs
every command once, interleaved, so drift in the machine's speed hits them
alike; medians of --repeat rounds, and the ratio citeledger / node per file
(the median of the per-round ratios; target <= 0.5). Also the wall time of
`citeledger --version` and `citeledger --help`, and of bare starts
(`python -c pass`, `node -e 0`) for scale, and of a bare Python importing the
engine's libraries (`libraries`: attrs, pluggy, yaml, lark, msgspec, orjson,
re2): a one-run `score`'s CPU beyond that (the median of the per-round
differences; target <= 60 ms, issue 34). Beside each median wall time, the
median CPU time (user + system) of the process: on a shared machine it moves
less than the wall time does.

With `CITELEDGER_REFERENCE` naming the folder of codegraph's real scripts
(fetched, never committed), each file is also run the way the harness runs
its per-run report: `citeledger score --harness --brief RUN` against the real
`node $CITELEDGER_REFERENCE/parse-run.mjs --brief RUN`, their stdout checked
byte-equal first, and the median of the per-round ratios printed (target
<= 1.0, issue 46). The floor beside it: `python -S -c pass` (the interpreter
alone), `python -c pass` (with site-packages and its .pth files: an editable
install's finder among them), and `libraries`.

`--baseline PATH` runs another installed `citeledger` (e.g. an older
checkout's venv) in the same rounds, interleaved, for before/after figures.

    CITELEDGER_REFERENCE=/tmp/cgref .venv/bin/python bench/latency.py [--repeat 15] [--baseline OTHER/.venv/bin/citeledger]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STREAM = ROOT / "tests" / "fixtures" / "real" / "stream"
FILES = ("express-res-send.jsonl", "express-sendfile-2calls.jsonl", "fastify-plugins-3calls.jsonl")
ORACLE = ROOT / "tests" / "oracle" / "reference.mjs"
# The installed command, as a user (or the harness) runs it; its bytecode cached.
TOOL = str(Path(sys.executable).with_name("citeledger"))
# The libraries a one-run `score` imports, by a bare Python: what it is measured beyond (lark only
# for a header line with a tag or an annotation, yaml only to build a ruleset not kept yet).
LIBRARIES = "import argparse, attrs, pluggy, msgspec, orjson, re2"
# codegraph's real scripts (CITELEDGER_REFERENCE): the harness's per-run report against them.
REFERENCE = os.environ.get("CITELEDGER_REFERENCE")
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of `cmd`; the CPU is the child's own (user + system)."""
    t = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(cmd, stdout=null, stderr=null, env=ENV)
        _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    return took, usage.ru_utime + usage.ru_stime


def same_output(ours: list[str], theirs: list[str]) -> None:
    """Refuse to time two commands whose stdout differs: the ratio is of the same report."""
    a, b = (subprocess.run(cmd, capture_output=True, env=ENV).stdout for cmd in (ours, theirs))
    if a != b:
        raise SystemExit(f"{' '.join(ours)}: stdout differs from {' '.join(theirs)}")


def harness_ratios(runs: dict, baseline) -> None:
    """`score --harness --brief` / `node parse-run.mjs --brief`, per file: medians of the per-round ratios."""
    for name in FILES:
        for who in ("harness", "baseline harness") if baseline else ("harness",):
            a, b = runs[f"{who} {name}"], runs[f"parse-run {name}"]
            r = statistics.median(x[0] / y[0] for x, y in zip(a, b))
            rc = statistics.median(x[1] / y[1] for x, y in zip(a, b))
            label = f"{who} / parse-run.mjs, {name}"
            print(f"  {label:62s} {r:5.2f}x  (CPU {rc:.2f}x; target <= 1.0: {'met' if r <= 1.0 else 'NOT met'})")


def build_commands(baseline) -> dict[str, list[str]]:
    """Every command timed, by label, in the order a round runs them."""
    commands: dict[str, list[str]] = {
        "python -S -c pass": [sys.executable, "-S", "-c", "pass"],
        "python -c pass": [sys.executable, "-c", "pass"],
        "libraries": [sys.executable, "-c", LIBRARIES],
        "node -e 0": ["node", "-e", "0"],
        "citeledger --version": [TOOL, "--version"],
        "citeledger --help": [TOOL, "--help"],
    }
    if baseline:
        commands["baseline --version"] = [baseline, "--version"]
    for name in FILES:
        path = str(STREAM / name)
        commands[f"score {name}"] = [TOOL, "score", path]
        if baseline:
            commands[f"baseline {name}"] = [baseline, "score", path]
        commands[f"node {name}"] = ["node", str(ORACLE), path]
        if REFERENCE:
            commands[f"harness {name}"] = [TOOL, "score", "--harness", "--brief", path]
            if baseline:
                commands[f"baseline harness {name}"] = [baseline, "score", "--harness", "--brief", path]
            commands[f"parse-run {name}"] = ["node", os.path.join(REFERENCE, "parse-run.mjs"), "--brief", path]
            same_output(commands[f"harness {name}"], commands[f"parse-run {name}"])
    return commands


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15, help="rounds (default 15)")
    ap.add_argument("--baseline", metavar="PATH", help="another installed citeledger to run in the same rounds")
    args = ap.parse_args()
    commands = build_commands(args.baseline)
    for cmd in commands.values():  # warm: page cache, bytecode, the kept files in the user's cache
        wall(cmd)
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    for _ in range(args.repeat):
        for label, cmd in commands.items():
            runs[label].append(wall(cmd))
    version = subprocess.run([TOOL, "--version"], capture_output=True, text=True, env=ENV).stdout.strip()
    print(f"{version}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"median wall (and CPU) of {args.repeat} interleaved rounds")
    for label, times in runs.items():
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        print(f"  {label:50s} {1e3 * statistics.median(walls):7.0f} ms  (min {1e3 * min(walls):.0f}; "
              f"CPU {1e3 * statistics.median(cpus):.0f} ms)")
    for name in FILES:
        for who in ("score", "baseline") if args.baseline else ("score",):
            a, b = runs[f"{who} {name}"], runs[f"node {name}"]
            r = statistics.median(x[0] / y[0] for x, y in zip(a, b))
            rc = statistics.median(x[1] / y[1] for x, y in zip(a, b))
            label = f"{who} / node, {name}"
            print(f"  {label:46s} {r:5.2f}x  (CPU {rc:.2f}x; target <= 0.5: {'met' if r <= 0.5 else 'NOT met'})")
    if REFERENCE:
        harness_ratios(runs, args.baseline)
    libraries = runs["libraries"]
    for name in FILES:
        for who in ("score", "baseline") if args.baseline else ("score",):
            a = runs[f"{who} {name}"]
            extra = statistics.median(x[1] - y[1] for x, y in zip(a, libraries))
            label = f"{who} beyond the libraries, {name}"
            print(f"  {label:46s} {1e3 * extra:5.0f} ms CPU  (target <= 60: {'met' if extra <= 0.060 else 'NOT met'})")
    print(f"  load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
