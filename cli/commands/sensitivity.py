"""`citeledger sensitivity`: would the number still move under other rulesets?"""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY

import contextlib
import os
import sys

from citeledger.rules.loader import load_ruleset

from citeledger.cli.commands.common import shipped_list

from citeledger.core.corpus import discover, score_corpus
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, UserError
from citeledger.report.plot import delta_plot
from citeledger.cli.output import output_dir, write_file, write_images, write_stdout
from citeledger.report.html import sensitivity_page
from citeledger.cli.limits import workers
from citeledger.cli.progress import progress_bar
from citeledger.report.sensitivity import COLUMNS, Sensitivity, render_text
from citeledger.rules.variation import one_at_a_time
from citeledger.cli.commands.common import (
    add_format_options, add_html_option, add_jobs_options, completed_files, outcome_inputs, report_warnings,
)
from citeledger.cli.commands.sweep import add_exclude_option, no_sessions, write_csv
from citeledger.report.sweep import QUANTILE_NOTE, turn_counts
from citeledger.report.jsonreport import json_bytes

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
    add_format_options(p, "print JSON lines (a header, then one object per row)")
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
    rulesets = rulesets_from(args)
    names = [r.name for r in rulesets]
    refs, warnings = discover(args.paths, args.exclude)
    if not refs:
        no_sessions(args.paths, warnings)
    result = Sensitivity(names, base=0)
    internal = unreadable = 0
    turns: list[int] = []
    read: list[tuple] = []  # (root, files read) per session
    with progress_bar(len(refs), "sensitivity", args.quiet) as advance:
        for outcome in score_corpus(refs, rulesets, workers(args.jobs, len(refs)), advance):
            internal += bool(outcome.error and outcome.error.startswith("internal error"))
            unreadable += outcome.error is not None
            warnings.extend(outcome.warnings)
            turns.append(outcome.ref.turns)
            read.append(outcome_inputs(outcome))
            result.add(outcome.ref.turns, outcome.scores)
    rows = result.rows()
    header = {
        "record": "sensitivity", "format": FORMAT, "paths": list(args.paths), "base": names[0],
        "rulesets": names, "sessions": len(refs), **turn_counts(turns),
        "unreadable": unreadable, "quantiles": "type 7",
    }
    added = completed_files(read, args.paths)
    if added:  # read with a file given by name (the partial-session rule)
        header["added_inputs"] = added
    with contextlib.ExitStack() as stack:
        if args.out:
            stack.enter_context(output_dir(args.out))
        images = delta_plot(names, rows, result.deltas(), names[0]) if args.plot or args.out or args.html else None
        plot = write_images(args.plot, images) if args.plot else []
        if args.out:
            plot += write_images(os.path.join(args.out, "sensitivity"), images)
        if args.html or args.out:
            page = sensitivity_page(header, rows, [w.as_dict() for w in warnings], images["svg"])
            for target in (args.html, args.out and os.path.join(args.out, "report.html")):
                if target:
                    write_file(target, page)
        records = [{**header, "plot": plot}] + [{"record": "row", **r} for r in rows]
        records += [{"record": "warning", **w.as_dict()} for w in warnings]
        text = render_text(dict(header, added=added), rows, plot)
        if args.out:
            write_file(os.path.join(args.out, "sensitivity.jsonl"), b"".join(json_bytes(r) + b"\n" for r in records))
            write_csv(os.path.join(args.out, "rows.csv"), COLUMNS, rows)
            write_file(os.path.join(args.out, "summary.txt"), text)
    report_warnings(warnings)
    if args.json:
        write_stdout(b"".join(json_bytes(r) + b"\n" for r in records))
    elif args.csv:
        write_csv(sys.stdout, COLUMNS, rows)
    else:
        write_stdout(text)
    if internal:
        print("citeledger: internal error while scoring some sessions", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_WARNINGS if unreadable or warnings else EXIT_OK
