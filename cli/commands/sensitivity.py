"""`citeledger sensitivity`: would the number still move under other rulesets?"""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY

import contextlib
import os
import sys
from typing import Optional

from citeledger.rules.loader import load_ruleset

from citeledger.cli.commands.common import shipped_list

from citeledger.corpus import discover, score_corpus
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, UserError
import attrs

from citeledger.cli.formats import check, chosen, out_path, render, write, write_pages
from citeledger.cli.output import output_dir
from citeledger.report.results import SensitivityResult
from citeledger.engine.limits import workers
from citeledger.cli.progress import progress_bar
from citeledger.report.sensitivity import Sensitivity, Verdicts
from citeledger.rules.variation import one_at_a_time
from citeledger.cli.commands.common import (
    add_exclude_option, add_format_options, add_html_option, add_jobs_options, no_sessions, report_warnings,
)
from citeledger.engine.outcomes import completed_files, outcome_inputs
from citeledger.report.sweep import QUANTILE_NOTE, turn_counts

FORMAT = "citeledger-sensitivity/1"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "sensitivity",
        help=SUMMARY["sensitivity"],
        description=(
            "Score every session under PATH... once per ruleset (each session is parsed once) and "
            "report, per ruleset and slice (all, single-question, multi-turn): pooled, median and p25 "
            "efficiency, their deltas from the base ruleset in percentage points, and the number of "
            "sessions whose verdicts changed (credited files or status). Rulesets come from --rulesets "
            "and from --vary KEY=V1,V2,... (one variant of the base per value, one key at a time). "
            + QUANTILE_NOTE + "."
        ),
    )
    # nargs="*": a PATH swallowed by --rulesets gets an error saying so (rulesets_from), not "required: PATH"
    p.add_argument("paths", nargs="*", metavar="PATH", help="transcript files or directories to search")
    p.add_argument("--base", default="default", metavar="NAME|PATH",
                   help="the ruleset deltas are measured from, and that --vary varies (default: %(default)s)")
    p.add_argument("--ruleset", action="append", dest="rulesets", default=[], metavar="NAME|PATH",
                   help="a ruleset to compare with the base (repeatable; " + shipped_list() + ")")
    p.add_argument("--rulesets", nargs="+", action="extend", dest="rulesets", metavar="NAME|PATH",
                   help="several at once (repeatable; put PATH before it, or end the list with another option)")
    p.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2",
                   help="a dotted ruleset key and values (YAML; quote regular expressions), "
                   "e.g. channels.symbol.ambiguity_limit=0,2,5; repeatable")
    add_format_options(p, "print JSON lines (a header, then one object per row)", "sensitivity")
    p.add_argument("--plot", metavar="PATH", help="write the plot of the deltas to PATH.png and PATH.svg")
    p.add_argument("--out", metavar="DIR", help="also write sensitivity.jsonl, rows.csv, summary.txt, "
                   "report.html and the plot (sensitivity.png, .svg) into DIR (created if missing)")
    add_exclude_option(p)
    add_html_option(p)
    add_jobs_options(p)
    p.set_defaults(run=run)


def rulesets_from(args) -> list:
    """The base first, then --ruleset/--rulesets, then the --vary variants; names must differ."""
    if not args.paths:
        swallowed = [n for n in args.rulesets if os.path.isdir(n) or n.endswith(".jsonl")]
        if swallowed:
            raise UserError(f"no PATH given: --rulesets took {', '.join(swallowed)} as a ruleset; "
                            "give PATH first, or --ruleset NAME once per ruleset")
        raise UserError("no PATH given: the transcript files or directories to search")
    if not args.rulesets and not args.vary:
        raise UserError("nothing to compare: give --rulesets NAME ... and/or --vary KEY=V1,V2")
    out = [load_ruleset(args.base)] + [load_ruleset(n) for n in args.rulesets] + one_at_a_time(args.base, args.vary)
    seen: dict[str, int] = {}
    for i, ruleset in enumerate(out):
        if ruleset.name in seen:
            raise UserError(f"ruleset {ruleset.name!r} is given twice (as #{seen[ruleset.name] + 1} and #{i + 1}); names must differ")
        seen[ruleset.name] = i
    return out


def run(args) -> int:
    fmt = chosen(args)
    check(fmt, "sensitivity")
    rulesets = rulesets_from(args)
    refs, warnings = discover(args.paths, args.exclude)
    if not refs:
        no_sessions(args.paths, warnings)
    result, internal = _measure(args, rulesets, refs, warnings)
    with contextlib.ExitStack() as stack:
        if args.out:
            stack.enter_context(output_dir(args.out))
        if args.plot or args.out or args.html:  # drawn once, for the files and the page
            result = attrs.evolve(result, images=render(result, "plot"))
        plot = write(result, "plot", args.plot) if args.plot else []
        plot += write(result, "plot", out_path(args.out, "sensitivity")) if args.out else []
        result = attrs.evolve(result, plot_paths=tuple(plot))
        write_pages(result, args.html, out_path(args.out, "report.html"))
        for name, fmt_name in (("sensitivity.jsonl", "json"), ("rows.csv", "csv"), ("summary.txt", "text")):
            if args.out:
                write(result, fmt_name, out_path(args.out, name))
    report_warnings(warnings)
    write(result, fmt)
    if internal:
        print("citeledger: internal error while scoring some sessions", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_WARNINGS if result.header["unreadable"] or warnings else EXIT_OK


def _measure(args, rulesets, refs, warnings: list) -> tuple[SensitivityResult, int]:
    """Score the corpus under every ruleset: the result record and how many sessions met a bug."""
    names = [r.name for r in rulesets]
    measured = Sensitivity(names, base=0)
    internal = unreadable = 0
    turns: list[int] = []
    read: list[tuple] = []  # (root, files read) per session
    with progress_bar(len(refs), "sensitivity", args.quiet) as advance:
        for one in score_corpus(refs, rulesets, workers(args.jobs, len(refs)), advance, shape=verdicts_of):
            internal += bool(one.error and one.error.startswith("internal error"))
            unreadable += one.error is not None
            warnings.extend(one.warnings)
            turns.append(one.ref.turns)
            read.append(one.inputs)
            measured.add(one.ref.turns, one.verdicts)
    header = {
        "record": "sensitivity", "format": FORMAT, "paths": list(args.paths), "base": names[0],
        "rulesets": names, "sessions": len(refs), **turn_counts(turns),
        "unreadable": unreadable, "quantiles": "type 7",
    }
    added = completed_files(read, args.paths)
    if added:  # read with a file given by name (the partial-session rule)
        header["added_inputs"] = added
    result = SensitivityResult(header=header, added=tuple(added), rows=tuple(measured.rows()),
                               deltas=tuple(measured.deltas()), warnings=warnings)
    return result, internal


@attrs.frozen(slots=True, kw_only=True)
class SensitivitySession:
    """What sensitivity keeps of one session, made in the worker (score_corpus's `shape`):
    the whole score, every call and its response, never crosses back."""

    ref: object
    error: Optional[str]
    warnings: tuple
    inputs: tuple  # (root, every file read): outcome_inputs
    verdicts: tuple  # a Verdicts (or None) per ruleset


def verdicts_of(outcome) -> SensitivitySession:
    return SensitivitySession(ref=outcome.ref, error=outcome.error, warnings=tuple(outcome.warnings),
                              inputs=outcome_inputs(outcome),
                              verdicts=tuple(None if s is None else Verdicts.of(s) for s in outcome.scores))
