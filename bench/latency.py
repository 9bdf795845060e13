"""One run, the way codegraph's harness calls a scorer: `citeledger score RUN` against node on the same file.

run-all.sh calls `node parse-run.mjs run.jsonl` once after each run; the
node side here is tests/oracle/reference.mjs (the spec transcribed: the same
read, parse, allocation and text block) given the same file. Each round runs
every command once, interleaved, so drift in the machine's speed hits them
alike; medians of --repeat rounds, and the ratio citeledger / node per file
(the median of the per-round ratios; target <= 0.5). Also the wall time of
`citeledger --version` and `citeledger --help`, and of bare starts
(`python -c pass`, `node -e 0`) for scale.

    .venv/bin/python bench/latency.py [--repeat 15]
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
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=False)
    took = time.perf_counter() - t
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15, help="rounds (default 15)")
    args = ap.parse_args()
    commands: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "node -e 0": ["node", "-e", "0"],
        "citeledger --version": [TOOL, "--version"],
        "citeledger --help": [TOOL, "--help"],
    }
    for name in FILES:
        path = str(STREAM / name)
        commands[f"score {name}"] = [TOOL, "score", path]
        commands[f"node {name}"] = ["node", str(ORACLE), path]
    for cmd in commands.values():  # warm: page cache, bytecode
        wall(cmd)
    runs: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(args.repeat):
        for label, cmd in commands.items():
            runs[label].append(wall(cmd))
    version = subprocess.run([TOOL, "--version"], capture_output=True, text=True, env=ENV).stdout.strip()
    print(f"{version}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"median wall of {args.repeat} interleaved rounds")
    for label, times in runs.items():
        print(f"  {label:42s} {1e3 * statistics.median(times):7.0f} ms  (min {1e3 * min(times):.0f})")
    for name in FILES:
        a, b = runs[f"score {name}"], runs[f"node {name}"]
        r = statistics.median(x / y for x, y in zip(a, b))
        print(f"  score / node, {name:32s} {r:5.2f}x  (target <= 0.5: {'met' if r <= 0.5 else 'NOT met'})")
    print(f"  load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
