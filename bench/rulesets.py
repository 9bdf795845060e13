"""Parse once, score many: scoring 10 rulesets vs scoring 1, on the bench corpus.

    python bench/make_corpus.py distinct bench/corpus/mid --sessions 2000   # once
    .venv/bin/python bench/rulesets.py bench/corpus/mid --repeat 3 --jobs 1 --out bench/results/rulesets
    .venv/bin/python bench/rulesets.py /tmp/sub --rulesets all     # every shipped ruleset vs default

(bench/run.py also times `sweep -j 1` under the same 10 rulesets, whole commands.)

Times `score_corpus` (discovery excluded) under [default] and under 10
rulesets (default and nine shipped alternatives), alternating the two so that
drift in the machine's speed hits both, and reports the median cost of each
and their ratio: CPU time of this process with --jobs 1 (the work, unaffected
by other load on the machine), wall time otherwise (both are in OUT.json). Writes OUT.json and a figure OUT.png / OUT.svg.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

from citeledger.corpus import discover, score_corpus
from citeledger.rules.loader import load_ruleset

TEN = ("default", "corrected", "path-only", "prose-symbols", "ambiguity-off", "ambiguity-2",
       "ambiguity-5", "all-kinds", "weak-owners", "utf8")


def timed(refs, rulesets, jobs) -> tuple[float, float, int]:
    """(cost, wall seconds, scores made). The cost is this process's CPU time
    with jobs=1 (what the work costs, whatever else the machine runs), else wall time."""
    wall, cpu = time.perf_counter(), time.process_time()
    scored = 0
    for outcome in score_corpus(refs, rulesets, jobs):
        scored += sum(s is not None for s in outcome.scores)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return (cpu if jobs == 1 else wall), wall, scored


def figure(path: str, one: list[float], ten: list[float], label: str, ylabel: str, many: int = 10) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "citeledger"
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    medians = [statistics.median(one), statistics.median(ten)]
    ax.bar([0, 1], medians, color=["#7f7f7f", "#1f77b4"], width=0.6, zorder=2)
    for x, runs in ((0, one), (1, ten)):
        ax.scatter([x] * len(runs), runs, color="black", s=12, zorder=3)
    ax.axhline(2 * medians[0], color="#d62728", linestyle="--", linewidth=1, label="2 × one ruleset")
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["1 ruleset", f"{many} rulesets"])
    ax.set_ylabel(ylabel)
    ax.set_title(f"{label}: {medians[1] / medians[0]:.2f}× for {many} rulesets", fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    out = []
    for ext in ("png", "svg"):
        fig.savefig(f"{path}.{ext}", dpi=120, metadata={"Date": None} if ext == "svg" else None)
        out.append(f"{path}.{ext}")
    plt.close(fig)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (1: this process, the CPU cost)")
    ap.add_argument("--out", default="bench/results/rulesets", help="OUT.json, OUT.png, OUT.svg")
    ap.add_argument("--rulesets", default="ten",
                    help="the many: 'ten' (default and nine shipped alternatives), 'all' (every shipped one) "
                         "or names separated by commas")
    args = ap.parse_args()
    refs, _ = discover([args.corpus])
    if not refs:
        print(f"{args.corpus}: no sessions (build it with bench/make_corpus.py)", file=sys.stderr)
        return 2
    size = sum(os.path.getsize(f) for r in refs for f in r.files)
    if args.rulesets == "ten":
        names = list(TEN)
    elif args.rulesets == "all":
        from citeledger.rules.compiled import shipped_names

        names = ["default"] + [n for n in shipped_names() if n != "default"]
    else:
        names = args.rulesets.split(",")
    one_set = [load_ruleset("default")]
    ten_set = [load_ruleset(n) for n in names]
    timed(refs[:20], ten_set, args.jobs)  # warm-up: imports, caches, page cache
    one, ten, walls = [], [], {"one": [], "ten": []}
    for _ in range(args.repeat):
        t1, w1, n1 = timed(refs, one_set, args.jobs)
        t10, w10, n10 = timed(refs, ten_set, args.jobs)
        one.append(t1)
        ten.append(t10)
        walls["one"].append(w1)
        walls["ten"].append(w10)
    ratio = statistics.median(ten) / statistics.median(one)
    result = {
        "corpus": args.corpus, "sessions": len(refs), "bytes": size, "jobs": args.jobs, "repeat": args.repeat,
        "rulesets": names, "one_seconds": one, "ten_seconds": ten,
        "one_median": statistics.median(one), "ten_median": statistics.median(ten), "ratio": ratio,
        "cost": "CPU seconds of this process" if args.jobs == 1 else "wall seconds",
        "wall_seconds": walls,
        "scores": {"one": n1, "ten": n10},
        "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
    }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out + ".json", "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=2)
    label = f"{len(refs)} sessions, {size / 1e6:.0f} MB, jobs={args.jobs}"
    files = figure(args.out, one, ten, label, "CPU time (s)" if args.jobs == 1 else "wall time (s)", len(names))
    print(f"{label} ({result['cost']}): 1 ruleset {result['one_median']:.2f}s, {len(names)} rulesets {result['ten_median']:.2f}s, "
          f"ratio {ratio:.2f} (median of {args.repeat}); wrote {args.out}.json, {', '.join(files)}")
    return 0 if ratio <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
