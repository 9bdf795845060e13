"""A whole A/B pass as codegraph's team reads it: the node workflow against one citeledger process.

The harness prints, per run, `node parse-run.mjs --brief RUN` (ab-new-vs-baseline.sh;
run-all.sh gives a run's `.tN` segments with it) and, per pass,
`node compare-arms.mjs PASS new baseline`. Three ways to get those bytes are timed
here on the same passes, in the same rounds, interleaved:

- `node`: that workflow, one node process per run and per pass (codegraph's own
  scripts, from the folder CITELEDGER_REFERENCE names; never committed here);
- `citeledger, a process each`: the same commands as citeledger processes
  (`score --harness --brief` per run, `compare --harness` per pass);
- `citeledger, one a pass`: `compare PASS --arms baseline new --harness --runs`.

Every round checks the one-a-pass output equals the node workflow's, byte for byte
(each run's block behind its `-- <stem> --` line, then the table). The passes are
bench/make_corpus.py's `abpass` shape (every A/B group of tests/fixtures/pass, the
runs cycled). Wall times are medians over `--repeat` rounds; the ratios are of
medians measured in one run (target: one process a pass at most 0.1x node).

    CITELEDGER_REFERENCE=DIR .venv/bin/python bench/pass_workflow.py [--passes 3] [--runs 12] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_corpus import build  # noqa: E402

TOOL = str(Path(sys.executable).with_name("citeledger"))
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ARMS = ("baseline", "new")


def runs_of(folder: Path, label: str) -> list[list[str]]:
    names = os.listdir(folder)
    numbers = sorted(int(m.group(1)) for n in names if (m := re.fullmatch(rf"run-{label}-(\d+)\.jsonl", n)))
    runs = []
    for i in numbers:
        stem = f"run-{label}-{i}"
        segments = sorted((int(m.group(1)), n) for n in names if (m := re.fullmatch(rf"{stem}\.t(\d+)\.jsonl", n)))
        runs.append([str(folder / f"{stem}.jsonl"), *(str(folder / n) for _, n in segments)])
    return runs


def output(cmd: list[str]) -> bytes:
    return subprocess.run(cmd, capture_output=True, env=ENV, check=True).stdout


def workflow(passes: list[Path], per_run, per_pass) -> bytes:
    """The harness's bytes: per pass, each run's `-- stem --` and block, then the pass's table."""
    out = []
    for folder in passes:
        for label in ARMS:
            for files in runs_of(folder, label):
                out.append(f"-- {Path(files[0]).name[:-6]} --\n".encode() + output(per_run(files)))
        out.append(output(per_pass(folder)))
    return b"".join(out)


def timed(fn) -> tuple[float, bytes]:
    t = time.perf_counter()
    got = fn()
    return time.perf_counter() - t, got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--passes", type=int, default=3, help="copies of the A/B groups (default 3: 9 pass folders)")
    ap.add_argument("--runs", type=int, default=12, help="runs per arm and pass (default 12)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    args = ap.parse_args()
    ref = os.environ.get("CITELEDGER_REFERENCE")
    if not ref or not os.path.isfile(os.path.join(ref, "parse-run.mjs")):
        raise SystemExit("CITELEDGER_REFERENCE must name a folder holding codegraph's parse-run.mjs and compare-arms.mjs")
    with tempfile.TemporaryDirectory() as tmp:
        made = build("abpass", Path(tmp) / "abpass", args.passes, args.runs)
        passes = sorted(p.parent for p in Path(tmp).glob("abpass/*/*/*/run-new-1.jsonl"))
        ways = {
            "node": lambda: workflow(passes, lambda f: ["node", f"{ref}/parse-run.mjs", "--brief", *f],
                                     lambda p: ["node", f"{ref}/compare-arms.mjs", str(p), *ARMS]),
            "citeledger, a process each": lambda: workflow(
                passes, lambda f: [TOOL, "score", "--harness", "--brief", *f],
                lambda p: [TOOL, "compare", str(p), "--arms", *ARMS, "--harness"]),
            "citeledger, one a pass": lambda: b"".join(
                output([TOOL, "compare", str(p), "--arms", *ARMS, "--harness", "--runs"]) for p in passes),
        }
        times: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.repeat):
            got = {}
            for name, fn in ways.items():
                took, got[name] = timed(fn)
                times[name].append(took)
            if len(set(got.values())) != 1:
                raise SystemExit("the three workflows printed different bytes")
        runs = made["sessions"]
        print(f"{len(passes)} passes, {runs} runs ({runs + len(passes)} node processes a round), "
              f"{args.repeat} rounds; outputs byte-identical in every round")
        node = statistics.median(times["node"])
        for name, seconds in times.items():
            median = statistics.median(seconds)
            print(f"  {name:28s} {median:7.2f} s   {median / node:5.2f}x node")


if __name__ == "__main__":
    main()
