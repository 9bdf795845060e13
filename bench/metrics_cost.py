"""What the harness metrics cost one job's reading and scoring (issue 30: aim under 10% of a sweep).

    .venv/bin/python bench/metrics_cost.py DIR [--files N] [--rounds R]
    .venv/bin/python bench/metrics_cost.py DIR --sweep [--rounds R]

On the first N transcript files under DIR (a corpus of make_corpus.py), in
this process, CPU time (time.process_time), the median of R rounds, each
alternating: read + score with the run log collected (what every read does
now), the same with the run log's collection switched off (the reading
before it), and the two metrics measured on top (what a command that
reports them adds). Bench code: it switches the collection off by
replacing the run log reader's methods, which nothing else does.

With --sweep: the whole command, `sweep DIR -j 1 -q --json` (stdout to
/dev/null) in this process, CPU time, R rounds of four runs (off, on, on,
off): as shipped, and with no metric installed and the run log's collection
off (the sweep before the metrics). The median of the rounds' ratios is what
the metrics cost a sweep (a round's ratio is robust to a machine whose load
drifts; the fastest run of each kind is printed too).
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


def sweep_cost(folder: str, rounds: int) -> None:
    import contextlib
    import io
    import sys

    import citeledger.core as core
    from citeledger.cli import main as cli
    from citeledger.core import plugins

    installed, feed, finish = plugins.metrics, run_log.RunLogReader.feed, run_log.RunLogReader.run_log

    def none() -> dict:
        return {}

    def one(on: bool) -> float:
        plugins.metrics = core.metrics = installed if on else none
        run_log.RunLogReader.feed = feed if on else (lambda self, *a, **k: None)
        run_log.RunLogReader.run_log = finish if on else (lambda self: None)
        sink = io.TextIOWrapper(open(os.devnull, "wb"))
        start = time.process_time()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
            cli(["sweep", folder, "-j", "1", "-q", "--json"])
        spent = time.process_time() - start
        sys.stdout.flush()
        return spent

    one(True)  # imports and caches warmed once, for both
    runs = {True: [], False: []}
    ratios = []
    for _ in range(rounds):  # off, on, on, off: a machine that slows down during a round favours neither
        spent = {False: 0.0, True: 0.0}
        for on in (False, True, True, False):
            took = one(on)
            runs[on].append(took)
            spent[on] += took
        ratios.append(spent[True] / spent[False])
    plugins.metrics = core.metrics = installed
    run_log.RunLogReader.feed, run_log.RunLogReader.run_log = feed, finish
    off, on = min(runs[False]), min(runs[True])
    print(f"sweep {folder} -j 1 --json, {rounds} rounds (CPU s, the fastest of each): without the metrics {off:.3f}, "
          f"with them {on:.3f} (+{(on / off - 1) * 100:.1f}%); per round (off, on, on, off) the metrics add "
          f"{', '.join(f'{(r - 1) * 100:+.1f}%' for r in ratios)}: median {(statistics.median(ratios) - 1) * 100:+.1f}%")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--sweep", action="store_true", help="the whole sweep command, with and without the metrics")
    args = ap.parse_args()
    if args.sweep:
        return sweep_cost(args.dir, args.rounds)
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
