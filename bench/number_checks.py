"""What the checks on numbers read from outside cost a sweep (infra/outside.py, issue 45 items 1, 2).

Runs `sweep --json -j 1` in this process over a corpus (default: a `distinct` corpus of 1,500
sessions built by make_corpus.py into a temporary folder) twice, interleaved (the order
alternating round by round), --repeat times:
as shipped, and with every check made free: the readers' `as_double` and `in_range` as the
identity and True, the sidecar's range warnings as none, the CSV cell's and the JSON writer's
range scans (`in_range`, report/jsonreport.py's `_SUSPECT`) as nothing. Prints the median CPU
seconds of each (on a shared machine their difference is mostly noise), then, --repeat runs more,
the checks' own time with each call timed, as a share of the sweep's CPU: the figure the bound
(--bound PERCENT, default 2) is held to, exit 1 past it. The outputs of both are checked byte-identical (the corpus holds no number out of range).

    .venv/bin/python bench/number_checks.py                       # 1,500 sessions, 5 rounds
    .venv/bin/python bench/number_checks.py --corpus bench/corpus/distinct --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


class _Never:
    """A compiled pattern that finds nothing, at no cost (the JSON writer's range scan, off)."""

    @staticmethod
    def search(_data):
        return None


def _free_checks() -> contextlib.ExitStack:
    """Every check on numbers from outside replaced by what costs nothing (undone on exit)."""
    from citeledger.harness import diagnostics
    from citeledger.readers import codex, gemini_tokens, run_log
    from citeledger.report import jsonreport, tables

    stack = contextlib.ExitStack()
    patches = [(run_log, "as_double", lambda v: v), (run_log, "in_range", lambda v: True),
               (codex, "as_double", lambda v: v), (gemini_tokens, "as_double", lambda v: v),
               (diagnostics, "as_double", lambda v: v), (diagnostics, "out_of_range_numbers", lambda r: []),
               (tables, "in_range", lambda v: True), (jsonreport, "_SUSPECT", _Never)]
    for module, name, value in patches:
        old = getattr(module, name)
        setattr(module, name, value)
        stack.callback(setattr, module, name, old)
    return stack


class _Timed:
    """The checks as shipped, each call's time summed (the timer's own cost counted in: an upper bound)."""

    def __init__(self):
        self.seconds = 0.0

    def wrap(self, call):
        def timed(*args):
            started = time.perf_counter()
            try:
                return call(*args)
            finally:
                self.seconds += time.perf_counter() - started
        return timed

    def pattern(self, compiled):
        outer = self

        class Timed:
            @staticmethod
            def search(data):
                return outer.wrap(compiled.search)(data)
        return Timed


def own_time(corpus: str) -> tuple[float, float]:
    """(the sweep's CPU seconds, the checks' own seconds within it) of one run, the checks timed."""
    from citeledger.cli import main
    from citeledger.harness import diagnostics
    from citeledger.readers import codex, gemini_tokens, run_log
    from citeledger.report import jsonreport, tables

    timer = _Timed()
    with contextlib.ExitStack() as stack:
        for module, name in [(run_log, "as_double"), (run_log, "in_range"), (codex, "as_double"),
                             (gemini_tokens, "as_double"), (diagnostics, "as_double"),
                             (diagnostics, "out_of_range_numbers"), (tables, "in_range")]:
            old = getattr(module, name)
            setattr(module, name, timer.wrap(old))
            stack.callback(setattr, module, name, old)
        old = jsonreport._SUSPECT
        jsonreport._SUSPECT = timer.pattern(old)
        stack.callback(setattr, jsonreport, "_SUSPECT", old)
        stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
        stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        started = time.process_time()
        main(["sweep", corpus, "--json", "-j", "1", "-q"])
        spent = time.process_time() - started
    return spent, timer.seconds


def sweep_cpu(corpus: str, free: bool) -> tuple[float, bytes]:
    """CPU seconds of one `sweep --json -j 1` in this process, and what it wrote."""
    from citeledger.cli import main

    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        if free:
            stack.enter_context(_free_checks())
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        started = time.process_time()
        main(["sweep", corpus, "--json", "-j", "1", "-q"])
        spent = time.process_time() - started
    return spent, out.getvalue().encode("utf-8", "surrogatepass")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", help="a folder to sweep (default: a distinct corpus built for the run)")
    parser.add_argument("--sessions", type=int, default=1500, help="sessions of the built corpus (default 1,500)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--bound", type=float, default=2.0, help="the checks' share allowed, percent (default 2)")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = opts.corpus
        if corpus is None:
            corpus = os.path.join(tmp, "distinct")
            subprocess.run([sys.executable, str(HERE / "make_corpus.py"), "distinct", corpus,
                            "--sessions", str(opts.sessions)], check=True, stdout=subprocess.DEVNULL)
        sweep_cpu(corpus, free=False)  # warm: imports, the kept plugin index and rulesets
        checked, free = [], []
        for round_ in range(opts.repeat):  # interleaved, the order alternating: a loaded machine and a
            outputs = {}                  # warmer second run bias neither side
            for off in ((False, True) if round_ % 2 == 0 else (True, False)):
                spent, outputs[off] = sweep_cpu(corpus, free=off)
                (free if off else checked).append(spent)
            if outputs[False] != outputs[True]:
                raise SystemExit("the outputs differ: the corpus holds a number out of range?")
        timed = [own_time(corpus) for _ in range(opts.repeat)]
    a, b = statistics.median(checked), statistics.median(free)
    difference = (a - b) / a * 100
    share = statistics.median(own / whole * 100 for whole, own in timed)
    print(f"sweep --json -j 1, {opts.repeat} rounds, median CPU: with the checks {a:.2f} s, without {b:.2f} s "
          f"({difference:+.1f}%: the machine's noise is larger than the checks)")
    print(f"the checks' own time, each call timed: {statistics.median(own for _, own in timed) * 1000:.1f} ms "
          f"of {statistics.median(whole for whole, _ in timed):.2f} s, {share:.2f}% of the sweep (bound {opts.bound:g}%)")
    return 0 if share <= opts.bound else 1


if __name__ == "__main__":
    sys.exit(main())
