"""What the harness metrics cost one job's reading and scoring (issue 30: aim under 10% of a sweep).

    .venv/bin/python bench/metrics_cost.py DIR [--files N] [--rounds R]

On the first N transcript files under DIR (a corpus of make_corpus.py), in
this process, CPU time (time.process_time), the median of R rounds, each
alternating: read + score with the run log collected (what every read does
now), the same with the run log's collection switched off (the reading
before it), and the two metrics measured on top (what a command that
reports them adds). Bench code: it switches the collection off by
replacing the run log reader's methods, which nothing else does.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import time

from citeledger.core import MetricOptions, measure_all, metrics, readers
from citeledger.core.accountant import score
from citeledger.readers import run_log
from citeledger.rules.loader import load_ruleset


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.dir, "**", "*.jsonl"), recursive=True))[: args.files]
    ruleset = load_ruleset("default")
    options, reader, known, metric_options = ruleset.read_options(), readers()["claude-stream"](), metrics(), MetricOptions()
    feed, finish = run_log.RunLogReader.feed, run_log.RunLogReader.run_log

    def one(collect: bool, measure: bool) -> float:
        run_log.RunLogReader.feed = feed if collect else (lambda self, *a, **k: None)
        run_log.RunLogReader.run_log = finish if collect else (lambda self: None)
        start = time.process_time()
        for path in files:
            try:
                transcript = reader.read([path], options)
            except Exception:  # a file of the corpus no stream reader reads (an interactive log)
                continue
            score(transcript, ruleset)
            if measure:
                measure_all(transcript, metric_options, known)
        return time.process_time() - start

    runs = {"off": [], "on": [], "measured": []}
    for _ in range(args.rounds):
        runs["off"].append(one(False, False))
        runs["on"].append(one(True, False))
        runs["measured"].append(one(True, True))
    run_log.RunLogReader.feed, run_log.RunLogReader.run_log = feed, finish
    off, on, measured = (statistics.median(runs[k]) for k in ("off", "on", "measured"))
    print(f"{len(files)} files, median of {args.rounds} rounds (CPU s): read+score without the run log {off:.3f}, "
          f"with it {on:.3f} (+{(on / off - 1) * 100:.1f}%), and both metrics measured {measured:.3f} "
          f"(+{(measured / off - 1) * 100:.1f}%)")


if __name__ == "__main__":
    main()
