"""`citeledger compare BASELINE NEW`: per group, every run of each build, medians, their
difference with a bootstrap interval, and the files whose envelope share moved most."""

from __future__ import annotations

from citeledger.cli.commands import SUMMARY

import contextlib
import os
import re
import sys
from typing import Iterator, Optional

import orjson

from citeledger.corpus import discover, score_corpus
from citeledger.harness.layout import arm_and_run, arm_group, arm_label
from citeledger.harness.layout import segment
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, InputError, UserError
from citeledger.rules.loader import compile_pattern
from citeledger.rules.safety import UnsafePattern

from citeledger.engine.limits import MAX_RESAMPLES, MAX_SEED, MAX_TOP, float_text, int_text, window_tokens, workers
from citeledger.core.metric import MetricOptions
from citeledger.corpus.measured import Measured, split_measured
import attrs

from citeledger.cli.formats import check, chosen, out_path, render, write
from citeledger.cli.formats import write_pages
from citeledger.cli.output import output_dir, write_file, write_stdout
from citeledger.cli.progress import progress_bar
from citeledger.cli.sidecars import Diagnosed
from citeledger.engine.sufficiency import GroupPool, judged, split
from citeledger.report.sufficiency import counted_dict
from citeledger.report.results import CompareResult
from citeledger.cli.commands.common import (
    add_corpus_options, add_diagnostics_options, add_sufficiency_option, as_typed, one_ruleset, report_warnings,
)
from citeledger.engine.reading import completed_files, outcome_inputs
from citeledger.report.compare import SIDES, Comparison, lines_up, unpaired_reason
from citeledger.report.tables import SWEEP_FORMAT, session_rows, wrote_line
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


# ---------------------------------------------------------------- reading a pass


def sweep_file(path: str) -> Optional[str]:
    """The sweep JSON-lines file `path` is or holds, else None (then it is transcripts)."""
    candidate = os.path.join(path, "sweep.jsonl") if os.path.isdir(path) else path
    if not os.path.isfile(candidate):
        return None
    try:
        with open(candidate, "rb") as fh:
            first = fh.readline(1 << 16)
        head = orjson.loads(first)
    except (OSError, orjson.JSONDecodeError):
        return None
    if isinstance(head, dict) and head.get("record") == "sweep":
        if head.get("format") != SWEEP_FORMAT:
            raise InputError(candidate, f"sweep output format {head.get('format')!r}, expected {SWEEP_FORMAT!r}", 1)
        return candidate
    return None


def read_sweep(path: str, ruleset: Optional[str]) -> Iterator[dict]:
    """Session rows of one ruleset from a sweep output (default: its first ruleset)."""
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise InputError(path, "not a JSON line of a sweep output", number)
            if number == 1:
                names = record.get("rulesets") or []
                if ruleset is None:
                    ruleset = names[0] if names else "default"
                elif ruleset not in names:
                    raise InputError(path, f"no ruleset {ruleset!r} in this sweep (it has: {', '.join(names)})", 1)
                continue
            if isinstance(record, dict) and record.get("record") == "session" and record.get("ruleset") == ruleset:
                yield record


def pass_rows(path: str, rulesets, args, label: str, warnings: list, used: set, arms=None,
              added: Optional[list] = None, diagnosed=None) -> Iterator[dict]:
    """Session rows of one pass; `used` collects the ruleset names they were scored under.

    With `arms`, only sessions of those harness arms are scored; each row gets
    `arm` and `run` (from its name, harness/layout.py), and the others come back
    as rows with status `other-arm`, unscored. `diagnosed` (cli.sidecars.Diagnosed)
    joins the sessions that have a diagnostic sidecar, by arm (else by `label`).
    """
    found = sweep_file(path)
    on = getattr(args, "sufficiency", False)
    if found:
        for row in read_sweep(found, rulesets[0].name if args.ruleset else None):
            used.add(row["ruleset"])
            if on and "sufficiency" not in row:
                raise InputError(found, "a sweep output made without --sufficiency: sweep again with it, "
                                 "or compare without --sufficiency")
            if arms:
                row = dict(row, **row_arm(row))
                if row["arm"] not in arms:
                    row["status"] = "other-arm"
            yield row
        return
    used.add(rulesets[0].name)
    added = [] if added is None else added
    refs, found_warnings = discover([path], args.exclude)
    warnings.extend(found_warnings)
    if not refs:
        raise UserError(f"{path}: no sessions found (and not a sweep output)")
    if arms:
        for ref in refs:
            if ref.arm not in arms:
                yield {"session": ref.key, "group": ref.group, "arm": ref.arm, "run": ref.run, "status": "other-arm"}
        refs = [ref for ref in refs if ref.arm in arms]
        if not refs:
            return
    with progress_bar(len(refs), label, args.quiet) as advance:
        join = diagnosed.join(label, by_arm=bool(arms)) if diagnosed is not None else None
        extra = judged(Measured(join, MetricOptions(window_tokens=window_tokens(args))), on, rulesets[0])
        for one in score_corpus(refs, rulesets[:1], workers(args.jobs, len(refs)), advance, extra=extra,
                                shape=PassRow(rulesets[0], on)):
            warnings.extend(one.warnings)
            added.extend(completed_files([one.inputs], [path]))
            if diagnosed is not None:
                diagnosed.add_joined(one.ref, one.scored, one.diag, one.ref.arm if arms else label)
            yield dict(one.row, arm=one.ref.arm, run=one.ref.run) if arms else dict(one.row, run=one.ref.run)


@attrs.frozen(slots=True, kw_only=True)
class PassSession:
    """What compare keeps of one scored session: made in the worker, so the whole score
    (every call and its response) never crosses back to this process."""

    ref: object
    warnings: tuple
    inputs: tuple  # (root, every file read): outcome_inputs
    scored: bool
    diag: object  # the diagnostic join the worker made, or None
    row: dict


class PassRow:
    """score_corpus's `shape` for compare: one outcome to its PassSession, in the worker.
    Picklable (sent to each worker once)."""

    def __init__(self, ruleset, sufficiency: bool):
        self.ruleset, self.sufficiency = ruleset, sufficiency

    def __call__(self, outcome) -> PassSession:
        outcome, counted = split(outcome, self.sufficiency)
        outcome, figures = split_measured(outcome)
        row = session_rows(outcome, [self.ruleset])[0]
        row.update(figures if figures is not None else {})  # the run and occupancy columns, as a sweep's rows
        if self.sufficiency:
            row["sufficiency"] = None if counted is None else counted_dict(counted)
        return PassSession(ref=outcome.ref, warnings=tuple(outcome.warnings), inputs=outcome_inputs(outcome),
                           scored=outcome.scores[0] is not None, diag=outcome.extra, row=row)


def row_arm(row: dict) -> dict:
    """Arm and run number of a sweep output's session row, from its key as discovery names them."""
    key = row["session"]
    arm, run = arm_and_run(segment(key)[0], os.path.dirname(key))
    return {"arm": arm, "run": run}


def arm_key(root: str, several: bool):
    """Group of a harness run: its directory relative to the pass root (a `run<i>/` folder folded
    into its parent); the root's own name at the top; prefixed by the root's name when several
    passes are compared, so two passes' `ab-express` stay apart."""
    name = os.path.basename(os.path.normpath(os.path.abspath(root)))

    def key(row):
        group = arm_group(row["group"])
        if group == ".":
            return name
        return f"{name}/{group}" if several else group

    return key


def key_function(spec: str):
    if spec == "parent":
        return lambda row: row["group"]
    if spec == "session":
        return lambda row: row["session"]
    try:
        pattern = compile_pattern(spec)  # as a ruleset's patterns: on RE2, in linear time, or refused
    except UnsafePattern as exc:
        raise UserError(f"--key {as_typed(spec)}: refused ({exc})")
    except re.error as exc:
        raise UserError(f"--key {as_typed(spec)}: not a regular expression ({exc})")

    def by_pattern(row):
        m = pattern.search(row["session"])
        if not m:
            return None
        return m.group(1) if pattern.groups else m.group(0)

    return by_pattern


# ---------------------------------------------------------------- the comparison


def add_arms(args, names, passes, rulesets, comparison, warnings: list, used: set, added: list,
             diagnosed=None, pooled=None) -> None:
    """Every session of the two harness arms `names` (baseline, new) under `passes`, scored and added
    to `comparison` (and to `pooled` with --sufficiency); a label with no run is a usage error."""
    wanted = tuple(arm_label(a) for a in names)  # as runs carry them
    if wanted[0] == wanted[1]:
        raise UserError(f"--arms {names[0]} {names[1]}: the two labels must differ")
    side_of = dict(zip(wanted, SIDES))
    seen_arms: dict = {}
    for path in passes:
        key = arm_key(path, len(passes) > 1) if args.key == "parent" else None
        for row in pass_rows(path, rulesets, args, os.path.basename(os.path.normpath(path)) or path,
                             warnings, used, arms=wanted, added=added, diagnosed=diagnosed):
            seen_arms[row.get("arm")] = None
            comparison.add(side_of.get(row.get("arm"), "base"), row, key)
            if pooled is not None and args.sufficiency:
                pooled.add(side_of.get(row.get("arm"), "base"), row, key or comparison.key)
    for name, label in zip(names, wanted):  # a mistyped label would compare one arm with nothing
        if label not in seen_arms:
            found = ", ".join(sorted(a for a in seen_arms if a is not None)) or "none"
            raise UserError(f"--arms {name}: no run-{label}-N.jsonl or run-headless-{label}.jsonl under "
                            f"{', '.join(passes)} (arms found: {found})")


def arm_groups(args, names, passes, warnings: list) -> list[dict]:
    """compare --arms's group rows (medians, their difference, its bootstrap interval at args.seed,
    args.resamples, args.confidence) for the arms `names` under `passes`, grouped by directory."""
    rulesets = load_many([one_ruleset(args.ruleset, "check")])
    comparison = Comparison(key_function("parent"))
    add_arms(args, names, passes, rulesets, comparison, warnings, set(), [])
    return comparison.group_rows(args)


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
    rulesets = load_many([one_ruleset(args.ruleset, "compare")])
    comparison = Comparison(key_function(args.key))
    pooled = GroupPool()
    diagnosed = Diagnosed(args, rulesets[0], pooled=False)
    warnings: list = []
    used: set = set()
    added: list = []  # files read with a file given by name
    if args.arms:
        add_arms(args, args.arms, args.passes, rulesets, comparison, warnings, used, added, diagnosed, pooled)
    else:
        for side, path in zip(SIDES, args.passes):
            for row in pass_rows(path, rulesets, args, "baseline" if side == "base" else "new", warnings, used,
                                 added=added, diagnosed=diagnosed):
                comparison.add(side, row)
                if args.sufficiency:
                    pooled.add(side, row, comparison.key)
    warnings.extend(diagnosed.warnings())
    result = _result(args, comparison, pooled, diagnosed, warnings, " vs ".join(sorted(used)) or rulesets[0].name, added)
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
    if any((u.get("reason") or "").startswith("internal error") for u in comparison.unscored):
        return EXIT_INTERNAL
    return EXIT_WARNINGS if comparison.unscored or warnings or not lines_up(list(result.groups)) else EXIT_OK


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


def _result(args, comparison, pooled, diagnosed, warnings, ruleset_name: str, added) -> CompareResult:
    groups = comparison.group_rows(args)
    files = comparison.file_rows(args.top)
    if args.sufficiency:
        pooled.add_to(groups)
    header = {
        "record": "compare", "format": "citeledger-compare/1",
        "baseline": args.arms[0] if args.arms else args.passes[0],
        "new": args.arms[1] if args.arms else args.passes[1], "ruleset": ruleset_name,
        "key": args.key, "seed": args.seed, "resamples": args.resamples, "confidence": args.confidence,
        "quantiles": "type 7",
    }
    if args.arms:
        header.update(arms=list(args.arms), passes=list(args.passes))
    if added:  # read with a file given by name (the partial-session rule)
        header["added_inputs"] = added
    plotted = [g for g in groups if g["group"] != "(all)"]
    labels = tuple(args.arms) if args.arms else ("baseline", "new")
    return CompareResult(
        header=header, added=tuple(added), groups=tuple(groups), files=tuple(files),
        unscored=tuple(comparison.unscored), other_arms=tuple(comparison.other_arms), warnings=warnings,
        diagnostics=tuple(diagnosed.records()), diagnostics_text=diagnosed.text("Diagnostics"),
        sufficiency=pooled, with_sufficiency=bool(args.sufficiency), labels=labels,
        plot_groups=tuple((plot_label(g["group"], args), [g["base_runs"], g["new_runs"]]) for g in plotted),
        intervals=tuple((g["ci_low"], g["ci_high"]) for g in plotted),
        behaviour=tuple(comparison.behaviour_arms(labels)),
    )


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


def plot_label(group: str, args) -> str:
    """A group as the plot names it: `.` (files at the top of both passes) by the passes' names."""
    if group != ".":
        return group
    names = [os.path.basename(os.path.normpath(os.path.abspath(p))) for p in args.passes]
    return names[0] if len(set(names)) == 1 else " vs ".join(names)
