"""`citeledger compare BASELINE NEW`: per group, every run of each build, medians, their
difference with a bootstrap interval, and the files whose envelope share moved most."""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY

import contextlib
import os
import sys

import attrs

from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, InputError, UserError
from citeledger.engine.compare import CompareRequest, compare, key_function
from citeledger.engine.limits import MAX_RESAMPLES, MAX_SEED, MAX_TOP, float_text, int_text

from citeledger.cli.formats import check, chosen, out_path, render, write
from citeledger.cli.formats import write_pages
from citeledger.cli.output import output_dir, write_file, write_stdout
from citeledger.cli.progress import progress_bar
from citeledger.cli.sidecars import Diagnosed
from citeledger.cli.sufficiency import add_sufficiency_option
from citeledger.engine.sufficiency import GroupPool
from citeledger.report.results import CompareResult
from citeledger.cli.commands.common import add_corpus_options, add_diagnostics_options, one_ruleset, report_warnings
from citeledger.report.compare import lines_up, unpaired_reason
from citeledger.report.tables import wrote_line
from citeledger.rules.compiled import load_many
from citeledger.report.sweep import QUANTILE_NOTE


def add_parser(sub) -> None:
    p = sub.add_parser(
        "compare",
        help=SUMMARY["compare"],
        usage="%(prog)s BASELINE NEW [options]\n       %(prog)s PASS [PASS ...] --arms LABEL_A LABEL_B [options]"
              "\n       %(prog)s PASS --arms L1 L2 [L3 ...] --harness [--runs]",
        description=(
            "Compare two builds. Either BASELINE and NEW, each a directory or file of transcripts (scored "
            "now) or a sweep output (sweep --json file, or a sweep --out DIR); or PASS... --arms A B: "
            "directories laid out as codegraph's A/B harness leaves them (run-<label>-<i>[.tN].jsonl, "
            "run-headless-<label>[.tN].jsonl side by side), arm A the baseline and arm B the new build. "
            "Sessions are grouped by --key (default: the session's directory relative to the pass's "
            "root); per group: every run's efficiency (in run-number order), both medians, their "
            "difference (new - baseline) with a percentile bootstrap interval (independent resamples of "
            "each side; seed stated), the harness's pooled and per-run lines, and the files whose pooled "
            "envelope share moved most. " + QUANTILE_NOTE + "."
        ),
    )
    p.add_argument("passes", nargs="+", metavar="PASS",
                   help="BASELINE NEW (two passes), or with --arms the pass directories holding both arms")
    p.add_argument("--arms", nargs="+", metavar="LABEL",
                   help="compare the harness arms LABEL_A (baseline) and LABEL_B (new) found under each PASS; "
                   "with --harness any number of labels (L1 L2 L3 ...)")
    p.add_argument("--harness", action="store_true",
                   help="print codegraph's arm table of one PASS directory, byte for byte as "
                   "`node compare-arms.mjs PASS L1 L2 ...` prints it (every arm side by side: runs, behavior, "
                   "occupancy, sufficiency, allocation, contamination)")
    p.add_argument("--runs", action="store_true",
                   help="with --harness: the whole pass in one process: before the table, each arm's runs (the order "
                   "given, then run order) as `-- <run file stem> --` and the run's `node parse-run.mjs --brief` "
                   "block; --json prints every run's record beside the table")
    p.add_argument("--arm-pattern", metavar="REGEX",
                   help="arms and questions from any layout: with ROOT --arms A B [C ...], a pattern with named "
                   "groups 'question' and 'arm' searched in each session's path relative to ROOT; sessions are "
                   "paired by question, each arm after the first compared with it (docs/your-tool.md)")
    p.add_argument("--key", default="parent", metavar="parent|session|REGEX",
                   help="group sessions by: 'parent' (directory, default), 'session' (the session's path), "
                   "or a regular expression searched in the session's path (its first group, else the match)")
    p.add_argument("--seed", type=int_text, default=0, metavar="N", help=f"bootstrap seed, 0 to {MAX_SEED} (default: %(default)s)")
    p.add_argument("--resamples", type=int_text, default=10_000, metavar="N",
                   help=f"bootstrap resamples, 1 to {MAX_RESAMPLES:,} (default: %(default)s)")
    p.add_argument("--confidence", type=float_text, default=0.95, metavar="LEVEL",
                   help="interval confidence, between 0 and 1 (default: %(default)s)")
    p.add_argument("--top", type=int_text, default=3, metavar="K",
                   help=f"files listed per group, 0 to {MAX_TOP:,} (default: %(default)s)")
    p.add_argument("--brief", action="store_true",
                   help="print the arm and group rows alone (each group's runs, medians, difference and interval), "
                   "not the harness view, behaviour, files or lists; --out's summary.txt stays whole")
    p.add_argument("--plot", metavar="PATH", help="write the plot to PATH.png and PATH.svg (--out writes DIR/compare.*)")
    add_corpus_options(p, "", once=True)
    add_diagnostics_options(p, automatic=True)
    add_sufficiency_option(p, "per group and arm")
    p.set_defaults(run=run)


def compare_request(args, ruleset, **changes) -> CompareRequest:
    """The engine's CompareRequest from compare's options (`changes` for one arm pair)."""
    fields = dict(
        passes=tuple(args.passes), ruleset=ruleset, ruleset_named=bool(args.ruleset),
        arms=tuple(args.arms) if args.arms else None, key=args.key, seed=args.seed, resamples=args.resamples,
        confidence=args.confidence, top=args.top, exclude=tuple(args.exclude), jobs=args.jobs,
        window_tokens=getattr(args, "window_tokens", None), sufficiency=bool(args.sufficiency),
        progress=lambda total, label: progress_bar(total, label, args.quiet),
    )
    return CompareRequest(**{**fields, **changes})


def run(args) -> int:
    if args.brief and args.harness:
        raise UserError("--brief: not with --harness (the arm table is compare-arms.mjs's, whole)")
    if args.brief and chosen(args) != "text":
        raise UserError(f"--brief shortens the text: not with --format {chosen(args)} (its records are whole)")
    if args.arm_pattern is not None:
        from citeledger.cli.commands.arm_pattern import run_arm_pattern, run_arm_pattern_table

        return run_arm_pattern_table(args) if args.harness else run_arm_pattern(args)
    if args.harness:
        from citeledger.cli.commands.arm_table import run_arm_table

        return run_arm_table(args)
    if args.runs:
        raise UserError("--runs: only with --harness (it adds each run's brief report before the arm table)")
    fmt = chosen(args)
    check(fmt, "compare")
    _check_passes(args)
    ruleset = load_many([one_ruleset(args.ruleset, "compare")])[0]
    key_function(args.key)  # a --key refused before any sidecar is read
    pooled = GroupPool()
    diagnosed = Diagnosed(args, ruleset, pooled=False)
    warnings: list = []
    result = compare(compare_request(args, ruleset), diagnosed, pooled, warnings)
    with contextlib.ExitStack() as stack:
        if args.out:
            stack.enter_context(output_dir(args.out))
        result, wrote = _write_files(args, result, diagnosed)
    report_warnings(warnings)
    write(attrs.evolve(result, brief=args.brief), fmt)
    if fmt == "text":
        write_stdout(wrote)
    elif not lines_up(list(result.groups)):  # the text says it in place of the table; other formats here
        labels = result.labels
        print("citeledger: warning: " + unpaired_reason(result.header, list(result.groups), labels).strip(),
              file=sys.stderr)
    if any((u.get("reason") or "").startswith("internal error") for u in result.unscored):
        return EXIT_INTERNAL
    return EXIT_WARNINGS if result.unscored or warnings or not lines_up(list(result.groups)) else EXIT_OK


def _check_passes(args) -> None:
    """Refuses passes that cannot be compared, before anything is read."""
    if args.out and os.path.exists(args.out) and not os.path.isdir(args.out):
        raise InputError(args.out, "--out names a file, not a directory")
    if args.arms and len(args.arms) != 2:
        # The statistics view is a difference of two arms (baseline, new) with its interval.
        raise UserError(f"--arms takes two labels (baseline, new), not {len(args.arms)}; "
                        "--harness prints the arm table of any number of arms")
    if not args.arms and len(args.passes) != 2:
        raise UserError("compare takes BASELINE NEW (two passes), or PASS... --arms LABEL_A LABEL_B")
    for path in args.passes:
        if not os.path.exists(path):
            raise InputError(path, "no such file or directory")


OUT_FILES = (("compare.jsonl", "json", None), ("groups.csv", "csv", "groups"), ("files.csv", "csv", "files"),
             ("summary.txt", "text", None))


def _write_files(args, result, diagnosed) -> tuple[CompareResult, str]:
    """The plot, the page, the diagnostics and the --out files: the result naming the images
    written, and the line naming what --out holds."""
    targets = [p for p in (args.plot, out_path(args.out, "compare")) if p]
    plot_paths: list[str] = []
    if targets or args.html:  # drawn once, for the files and the page
        result = attrs.evolve(result, images=render(result, "plot"))
        for target in targets:
            plot_paths += write(result, "plot", target)
    result = attrs.evolve(result, plot_paths=tuple(plot_paths))
    diag_paths = diagnosed.write(args.out)
    write_pages(result, args.html, out_path(args.out, "report.html"))
    if not args.out:
        return result, ""
    for name, fmt, table in OUT_FILES:
        data = render(result, fmt, table=table) if table else render(result, fmt)
        write_file(os.path.join(args.out, name), data)
    inside = [p for p in plot_paths + diag_paths if os.path.normpath(os.path.dirname(p)) == os.path.normpath(args.out)]
    names = ["compare.jsonl", "groups.csv", "files.csv", "summary.txt", "report.html"]
    # on stdout only: summary.txt stays the same wherever it is written
    return result, wrote_line(args.out, names + [os.path.basename(p) for p in inside])

