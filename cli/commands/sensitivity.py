"""`citeledger sensitivity`: would the number still move under other rulesets?"""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY

import contextlib
import os
import sys

import attrs

from citeledger.rules.loader import load_ruleset
from citeledger.corpus import discover
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, UserError
from citeledger.engine.sensitivity import SensitivityRequest, sensitivity
from citeledger.cli.formats import check, chosen, out_path, render, write, write_pages
from citeledger.cli.output import output_dir
from citeledger.cli.progress import progress_bar
from citeledger.rules.variation import one_at_a_time
from citeledger.cli.commands.common import (
    add_exclude_option, add_format_options, add_html_option, add_jobs_options, no_sessions, report_warnings,
    shipped_list,
)
from citeledger.report.sweep import QUANTILE_NOTE


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
    request = SensitivityRequest(paths=tuple(args.paths), rulesets=tuple(rulesets), jobs=args.jobs,
                                 progress=lambda total, label: progress_bar(total, label, args.quiet))
    result = sensitivity(request, refs, warnings)
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
    if result.internal:
        print("citeledger: internal error while scoring some sessions", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_WARNINGS if result.header["unreadable"] or warnings else EXIT_OK
