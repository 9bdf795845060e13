"""`citeledger sensitivity`: would the number still move under other rulesets?"""

from __future__ import annotations

import sys

from citeledger.rules.loader import load_ruleset

from citeledger.core.corpus import discover, score_corpus
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, UserError
from citeledger.report.plot import delta_plot
from citeledger.cli.output import write_images, write_stdout
from citeledger.cli.progress import progress_bar
from citeledger.report.sensitivity import COLUMNS, Sensitivity
from citeledger.report.tables import pct, points
from citeledger.rules.variation import one_at_a_time
from citeledger.cli.commands.common import add_format_options, add_jobs_options, warn
from citeledger.cli.commands.sweep import QUANTILE_NOTE, write_csv
from citeledger.report.jsonreport import json_bytes

FORMAT = "citeledger-sensitivity/1"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "sensitivity",
        help="how far other rulesets move the numbers from a base ruleset",
        description=(
            "Score every session under PATH... once per ruleset (each session is parsed once) and "
            "report, per ruleset and slice (all, single-question, multi-turn): pooled, median and p25 "
            "efficiency, their deltas from the base ruleset in percentage points, and the number of "
            "sessions whose verdicts changed (credited files or status). Rulesets come from --rulesets "
            "and from --vary KEY=V1,V2,... (one variant of the base per value, one key at a time). "
            + QUANTILE_NOTE + "."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="transcript files or directories to search")
    p.add_argument("--base", default="default", metavar="NAME|PATH",
                   help="the ruleset deltas are measured from, and that --vary varies (default: %(default)s)")
    p.add_argument("--rulesets", nargs="+", default=[], metavar="NAME|PATH", help="rulesets to compare with the base")
    p.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2",
                   help="a dotted ruleset key and values (YAML; quote regular expressions), "
                   "e.g. channels.symbol.ambiguity_limit=0,2,5; repeatable")
    add_format_options(p, "print JSON lines (a header, then one object per row)")
    p.add_argument("--plot", metavar="PATH", help="write the plot of the deltas to PATH.png and PATH.svg")
    add_jobs_options(p)
    p.set_defaults(run=run)


def rulesets_from(args) -> list:
    """The base first, then --rulesets, then the --vary variants; names must differ."""
    if not args.rulesets and not args.vary:
        raise UserError("nothing to compare: give --rulesets NAME ... and/or --vary KEY=V1,V2")
    out = [load_ruleset(args.base)] + [load_ruleset(n) for n in args.rulesets] + one_at_a_time(args.base, args.vary)
    seen: dict[str, int] = {}
    for i, ruleset in enumerate(out):
        if ruleset.name in seen:
            raise UserError(f"ruleset {ruleset.name!r} is given twice (as #{seen[ruleset.name] + 1} and #{i + 1}); names must differ")
        seen[ruleset.name] = i
    return out


def render_text(header: dict, rows: list[dict], plot: list[str]) -> str:
    lines = [
        f"citeledger sensitivity — {header['sessions']} sessions ({header['single_question']} single-question, "
        f"{header['multi_turn']} multi-turn) under {', '.join(header['paths'])}; base ruleset {header['base']}",
        "",
    ]
    width = max(len(r["ruleset"]) for r in rows)
    lines.append(
        f"  {'ruleset':<{width}}  {'slice':<15}  {'n':>4}  {'pooled':>6}  {'Δ pt':>6}  {'median':>6}  {'Δ pt':>6}"
        f"  {'p25':>6}  {'Δ pt':>6}  changed"
    )
    for r in rows:
        base = r["ruleset"] == header["base"]
        d = (lambda k: "" if base else points(r[k], minus="-"))
        changed = "" if base else f"{r['changed']}/{r['compared']}"
        lines.append(
            f"  {r['ruleset']:<{width}}  {r['slice']:<15}  {r['n']:>4}  {pct(r['pooled']):>6}  {d('delta_pooled'):>6}"
            f"  {pct(r['median']):>6}  {d('delta_median'):>6}  {pct(r['p25']):>6}  {d('delta_p25'):>6}  {changed}"
        )
    lines += [
        "",
        "Δ pt: percentage points from the base's same statistic; each ruleset's statistics are over the "
        "sessions it could score. changed: sessions whose credited files or status differ from the base's.",
        QUANTILE_NOTE + ".",
        ("plot: " + ", ".join(plot)) if plot else "no plot written (give --plot PATH)",
    ]
    return "\n".join(lines) + "\n"


def run(args) -> int:
    rulesets = rulesets_from(args)
    names = [r.name for r in rulesets]
    refs, warnings = discover(args.paths)
    for w in warnings:
        warn(w)
    if not refs:
        raise UserError(f"{', '.join(args.paths)}: no sessions found")
    result = Sensitivity(names, base=0)
    internal = unreadable = 0
    with progress_bar(len(refs), "sensitivity", args.quiet) as advance:
        for outcome in score_corpus(refs, rulesets, args.jobs, advance):
            internal += bool(outcome.error and outcome.error.startswith("internal error"))
            unreadable += outcome.error is not None
            warnings.extend(outcome.warnings)
            for w in outcome.warnings:
                warn(w)
            result.add(outcome.ref.turns, outcome.scores)
    rows = result.rows()
    header = {
        "record": "sensitivity", "format": FORMAT, "paths": list(args.paths), "base": names[0],
        "rulesets": names, "sessions": len(refs),
        "single_question": sum(1 for r in refs if r.turns <= 1),
        "multi_turn": sum(1 for r in refs if r.turns > 1),
        "unreadable": unreadable, "quantiles": "type 7",
    }
    plot = write_images(args.plot, delta_plot(names, rows, result.deltas(), names[0])) if args.plot else []
    if args.json:
        records = [{**header, "plot": plot}] + [{"record": "row", **r} for r in rows]
        write_stdout(b"".join(json_bytes(r) + b"\n" for r in records))
    elif args.csv:
        write_csv(sys.stdout, COLUMNS, rows)
    else:
        write_stdout(render_text(header, rows, plot))
    if internal:
        print("citeledger: internal error while scoring some sessions", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_WARNINGS if unreadable or warnings else EXIT_OK
