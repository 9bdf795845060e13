"""`citeledger compare BASELINE NEW`: per group, every run of each build, medians, their
difference with a bootstrap interval, and the files whose envelope share moved most."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from typing import Iterator, Optional

import attrs
import orjson

from citeledger.core.corpus import discover, score_corpus
from citeledger.core.layout import arm_and_run, arm_group
from citeledger.core.readers.claude_stream import segment
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, InputError, UserError
from citeledger.core.jsstr import percent, to_fixed
from citeledger.rules.loader import compile_pattern

from citeledger.cli.output import output_dir, write_file, write_images, write_stdout
from citeledger.cli.progress import progress_bar
from citeledger.cli.sidecars import Diagnosed, add_diagnostics_options
from citeledger.report.html import compare_page
from citeledger.cli.commands.common import added_line, completed_files, outcome_inputs, report_warnings
from citeledger.report.stats import bootstrap_median_difference, median
from citeledger.report.tables import SWEEP_FORMAT, layout, pct, points, session_rows
from citeledger.cli.commands.sweep import QUANTILE_NOTE, add_corpus_options, jsonl, load_rulesets, write_csv

GROUP_COLUMNS = (
    "group", "base_n", "new_n", "base_runs", "new_runs", "base_median", "new_median", "difference",
    "ci_low", "ci_high", "confidence", "resamples", "seed", "base_not_scored", "new_not_scored",
)
FILE_COLUMNS = ("group", "path", "base_share", "new_share", "delta", "base_chars", "new_chars")
SIDES = ("base", "new")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "compare",
        help="new build vs baseline on the same questions: per-group runs, medians, bootstrap CI, plot",
        usage="%(prog)s BASELINE NEW [options]\n       %(prog)s PASS [PASS ...] --arms LABEL_A LABEL_B [options]",
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
    p.add_argument("--arms", nargs=2, metavar=("LABEL_A", "LABEL_B"),
                   help="compare the harness arms LABEL_A (baseline) and LABEL_B (new) found under each PASS")
    p.add_argument("--key", default="parent",
                   help="group sessions by: 'parent' (directory, default), 'session' (the session's path), "
                   "or a regular expression searched in the session's path (its first group, else the match)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default: %(default)s)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval confidence (default: %(default)s)")
    p.add_argument("--top", type=int, default=3, metavar="K", help="files listed per group (default: %(default)s)")
    p.add_argument("--plot", metavar="PATH", help="write the plot to PATH.png and PATH.svg (--out writes DIR/compare.*)")
    add_corpus_options(p, "pick the ruleset (only the first is compared)")
    add_diagnostics_options(p, automatic=True)
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
    `arm` and `run` (from its name, core/layout.py), and the others come back
    as rows with status `other-arm`, unscored. `diagnosed` (cli.sidecars.Diagnosed)
    joins the sessions that have a diagnostic sidecar, by arm (else by `label`).
    """
    found = sweep_file(path)
    if found:
        for row in read_sweep(found, rulesets[0].name if args.ruleset else None):
            used.add(row["ruleset"])
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
        for outcome in score_corpus(refs, rulesets[:1], args.jobs, advance):
            warnings.extend(outcome.warnings)
            added.extend(completed_files([outcome_inputs(outcome)], [path]))
            if diagnosed is not None:
                diagnosed.add(outcome.ref, outcome.scores[0], outcome.ref.arm if arms else label)
            row = session_rows(outcome, rulesets[:1])[0]
            yield dict(row, arm=outcome.ref.arm, run=outcome.ref.run) if arms else dict(row, run=outcome.ref.run)


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
        pattern = compile_pattern(spec)  # checked like a ruleset's patterns: no catastrophic backtracking
    except re.error as exc:
        raise UserError(f"--key {spec!r}: not a regular expression ({exc})")

    def by_pattern(row):
        m = pattern.search(row["session"])
        if not m:
            return None
        return m.group(1) if pattern.groups else m.group(0)

    return by_pattern


# ---------------------------------------------------------------- the comparison


@attrs.define
class Side:
    runs: list = attrs.Factory(list)  # (run number or None, session, efficiency) in the pass's order
    envelope: int = 0
    used: int = 0
    chars: dict = attrs.Factory(dict)  # path -> pooled chars
    not_scored: int = 0

    def in_run_order(self) -> list:
        """Runs by run number (run-new-10 after run-new-2); runs without one keep the pass's order."""
        return sorted(self.runs, key=lambda r: (r[0] is None, r[0] or 0))


class Comparison:
    """Per-group accumulators: numbers and file totals, never whole sessions."""

    def __init__(self, key):
        self.key = key
        self.groups: dict[str, dict[str, Side]] = {}
        self.unscored: list[dict] = []
        self.other_arms: list[dict] = []  # sessions of arms not compared: listed, not counted

    def add(self, side: str, row: dict, key=None) -> None:
        if row["status"] == "other-arm":
            self.other_arms.append({"session": row["session"], "arm": row.get("arm")})
            return
        group = (key or self.key)(row)
        if group is None:
            self.unscored.append({"side": side, "session": row["session"], "status": "ungrouped",
                                  "reason": "--key pattern does not match the session's path"})
            return
        s = self.groups.setdefault(group, {"base": Side(), "new": Side()})[side]
        if row["status"] != "scored":
            s.not_scored += 1
            self.unscored.append({"side": side, "session": row["session"], "status": row["status"], "reason": row["reason"]})
            return
        s.runs.append((row.get("run"), row["session"], row["efficiency"]))
        s.envelope += row["envelope"]
        s.used += row["used"]
        for path, chars, _channel in row["files"]:
            s.chars[path] = s.chars.get(path, 0) + chars

    def group_rows(self, args) -> list[dict]:
        rows = []
        names = sorted(self.groups)
        everything = {"base": [], "new": []}
        totals = {side: [0, 0] for side in SIDES}  # used, envelope of the paired groups
        for name in names + ["(all)"]:
            if name == "(all)":
                runs = everything
                sessions = {side: [] for side in SIDES}
                pooled_of = {side: ratio_or_none(*totals[side]) for side in SIDES}
                not_scored = {side: sum(self.groups[g][side].not_scored for g in names) for side in SIDES}
            else:
                sides = self.groups[name]
                ordered = {side: sides[side].in_run_order() for side in SIDES}
                runs = {side: [e for _, _, e in ordered[side]] for side in SIDES}
                sessions = {side: [k for _, k, _ in ordered[side]] for side in SIDES}
                pooled_of = {side: ratio_or_none(sides[side].used, sides[side].envelope) for side in SIDES}
                not_scored = {side: sides[side].not_scored for side in SIDES}
                if runs["base"] and runs["new"]:  # (all) pools paired groups only: a one-sided
                    for side in SIDES:            # group would move a median by itself
                        everything[side].extend(runs[side])
                        totals[side][0] += sides[side].used
                        totals[side][1] += sides[side].envelope
            b, n = median(runs["base"]), median(runs["new"])
            ci = bootstrap_median_difference(
                runs["base"], runs["new"], label=name, seed=args.seed,
                resamples=args.resamples, confidence=args.confidence,
            )
            rows.append({
                "record": "group", "group": name,
                "base_n": len(runs["base"]), "new_n": len(runs["new"]),
                "base_runs": runs["base"], "new_runs": runs["new"],
                "base_median": b, "new_median": n,
                "difference": None if b is None or n is None else n - b,
                "ci_low": ci.low if ci else None, "ci_high": ci.high if ci else None,
                "confidence": args.confidence, "resamples": args.resamples, "seed": args.seed,
                "base_not_scored": not_scored["base"], "new_not_scored": not_scored["new"],
                # the harness's allocation lines (compare-arms.mjs): pooled over the group's scored runs
                "base_pooled": pooled_of["base"], "new_pooled": pooled_of["new"],
                "base_sessions": sessions["base"], "new_sessions": sessions["new"],
            })
        return rows

    def file_rows(self, top: int) -> list[dict]:
        rows = []
        for name in sorted(self.groups):
            base, new = self.groups[name]["base"], self.groups[name]["new"]
            if not base.envelope or not new.envelope:
                continue
            moved = []
            for path in dict.fromkeys(list(base.chars) + list(new.chars)):
                bs = base.chars.get(path, 0) / base.envelope
                ns = new.chars.get(path, 0) / new.envelope
                moved.append((-abs(ns - bs), path, bs, ns))
            moved.sort(key=lambda m: (m[0], m[1]))
            for _, path, bs, ns in moved[:top]:
                rows.append({
                    "record": "file", "group": name, "path": path, "base_share": bs, "new_share": ns,
                    "delta": ns - bs, "base_chars": base.chars.get(path, 0), "new_chars": new.chars.get(path, 0),
                })
        return rows


def ratio_or_none(part: int, whole: int):
    return part / whole if whole else None


NOT_COMPARED_LISTED = 20  # text lists this many; JSON and --out list all


def render_text(header: dict, groups: list[dict], files: list[dict], unscored: list[dict], plot: list[str],
                other_arms: list[dict] = ()) -> str:
    labels = header.get("arms") or ["baseline", "new"]
    if header.get("arms"):
        out = (
            f"citeledger compare — arm {labels[0]} (baseline) vs arm {labels[1]} (new) under "
            f"{', '.join(header['passes'])} (ruleset {header['ruleset']}, grouped by {header['key']})\n"
        )
    else:
        out = (
            f"citeledger compare — baseline {header['baseline']} vs new {header['new']} "
            f"(ruleset {header['ruleset']}, grouped by {header['key']})\n"
        )
    out += added_line(header.get("added", ()))
    conf = int(round(header["confidence"] * 100))
    heads = (f"{labels[0]} runs", f"{labels[1]} runs", f"{labels[0]} med", f"{labels[1]} med") if header.get("arms") \
        else ("base runs", "new runs", "base med", "new med")
    headers = ("group", *heads, "diff (pp)", f"{conf}% CI (pp)")
    body = []
    for g in groups:
        ci = "—" if g["ci_low"] is None else f"[{points(g['ci_low'])}, {points(g['ci_high'])}]"
        body.append((
            g["group"], runs_text(g["base_runs"]), runs_text(g["new_runs"]),
            pct(g["base_median"]), pct(g["new_median"]), points(g["difference"]), ci,
        ))
    out += layout(headers, body, (False, False, False, True, True, True, False))
    out += (
        f"  bootstrap: {header['resamples']} percentile resamples of each side's median, "
        f"seed {header['seed']} (numpy PCG64 seeded with seed and crc32 of the group)\n"
    )
    out += "\n" + harness_lines(groups, labels)
    if files:
        out += "\nfiles whose envelope share moved most (pooled over the group's scored runs):\n"
        body = [(f["group"], f["path"], percent(f["base_share"]), percent(f["new_share"]), points(f["delta"])) for f in files]
        out += layout(("group", "file", labels[0] if header.get("arms") else "base",
                       labels[1] if header.get("arms") else "new", "moved (pp)"), body, (False, False, True, True, True))
    if unscored:
        out += f"\nnot compared ({len(unscored)}):\n"
        for u in unscored[:NOT_COMPARED_LISTED]:
            out += f"  {u['side']:<4}  {u['status']:<10}  {u['session']}  — {u['reason']}\n"
        if len(unscored) > NOT_COMPARED_LISTED:
            out += f"  … and {len(unscored) - NOT_COMPARED_LISTED} more (all in --json and --out)\n"
    if other_arms:
        counts: dict = {}
        for o in other_arms:
            counts[o["arm"]] = counts.get(o["arm"], 0) + 1
        named = ", ".join(f"{'(no arm label)' if a is None else a} {n}" for a, n in counts.items())
        out += f"\nsessions of other arms, not compared ({len(other_arms)}): {named}\n"
    out += ("\nplot: " + ", ".join(plot) + "\n") if plot else "\nno plot written (give --out DIR or --plot PATH)\n"
    return out


def harness_lines(groups: list[dict], labels) -> str:
    """The allocation lines of the harness's ARM COMPARISON table (compare-arms.mjs), per group:
    pooled efficiency, and per-run efficiency as median [min–max]."""
    out = "harness view (as compare-arms.mjs prints allocation), per group:\n"
    width = max(len(label) for label in labels)
    for g in groups:
        if g["group"] == "(all)":
            continue
        out += f"  {g['group']}\n"
        for side, label in zip(SIDES, labels):
            runs = g[f"{side}_runs"]
            spread = f"{pct(g[f'{side}_median'])} [{pct(min(runs))}–{pct(max(runs))}]" if runs else "—"
            out += f"    {label:<{width}}  pooled efficiency  {pct(g[f'{side}_pooled']):>6}   per-run efficiency  {spread}\n"
    return out


def runs_text(values) -> str:
    """Every run, in percent with one decimal, in the pass's order: the spread, not only the median."""
    if not values:
        return "—"
    shown = [to_fixed(v * 100, 1) for v in values[:8]]
    return " ".join(shown) + (f" …+{len(values) - 8}" if len(values) > 8 else "")


def run(args) -> int:
    if args.resamples < 1:
        raise UserError("--resamples must be at least 1")
    if not 0 < args.confidence < 1:
        raise UserError("--confidence must be between 0 and 1")
    if args.top < 0:
        raise UserError("--top must be 0 or more")
    if args.out and os.path.exists(args.out) and not os.path.isdir(args.out):
        raise InputError(args.out, "--out names a file, not a directory")
    if not args.arms and len(args.passes) != 2:
        raise UserError("compare takes BASELINE NEW (two passes), or PASS... --arms LABEL_A LABEL_B")
    if args.arms and args.arms[0] == args.arms[1]:
        raise UserError(f"--arms {args.arms[0]} {args.arms[1]}: the two labels must differ")
    rulesets = load_rulesets(args.ruleset)
    comparison = Comparison(key_function(args.key))
    diagnosed = Diagnosed(args, rulesets[0], pooled=False)
    warnings: list = []
    used: set = set()
    added: list = []  # files read with a file given by name
    for path in args.passes:
        if not os.path.exists(path):
            raise InputError(path, "no such file or directory")
    if args.arms:
        side_of = dict(zip(args.arms, SIDES))
        seen_arms: dict = {}
        for path in args.passes:
            key = arm_key(path, len(args.passes) > 1) if args.key == "parent" else None
            for row in pass_rows(path, rulesets, args, os.path.basename(os.path.normpath(path)) or path,
                                 warnings, used, arms=args.arms, added=added, diagnosed=diagnosed):
                seen_arms[row.get("arm")] = None
                comparison.add(side_of.get(row.get("arm"), "base"), row, key)
        for label in args.arms:  # a mistyped label would compare one arm with nothing
            if label not in seen_arms:
                found = ", ".join(sorted(a for a in seen_arms if a is not None)) or "none"
                raise UserError(f"--arms {label}: no run-{label}-N.jsonl or run-headless-{label}.jsonl under "
                                f"{', '.join(args.passes)} (arms found: {found})")
    else:
        for side, path in zip(SIDES, args.passes):
            for row in pass_rows(path, rulesets, args, "baseline" if side == "base" else "new", warnings, used,
                                 added=added, diagnosed=diagnosed):
                comparison.add(side, row)
    warnings.extend(diagnosed.warnings())
    ruleset_name = " vs ".join(sorted(used)) or rulesets[0].name
    groups = comparison.group_rows(args)
    files = comparison.file_rows(args.top)
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
    records = [header] + groups + files + [{"record": "unscored", **u} for u in comparison.unscored]
    records += [{"record": "other-arm", **o} for o in comparison.other_arms]
    records += diagnosed.records()
    records += [{"record": "warning", **w.as_dict()} for w in warnings]
    labels = tuple(args.arms) if args.arms else ("baseline", "new")
    with contextlib.ExitStack() as stack:
        if args.out:
            stack.enter_context(output_dir(args.out))
        plot_paths = []
        targets = [p for p in (args.plot, os.path.join(args.out, "compare") if args.out else None) if p]
        images = {}
        if targets or args.html:
            from citeledger.report.plot import strip_plot

            series_groups = [(plot_label(g["group"], args), [g["base_runs"], g["new_runs"]])
                             for g in groups if g["group"] != "(all)"]
            intervals = [(g["ci_low"], g["ci_high"]) for g in groups if g["group"] != "(all)"]
            images = strip_plot(series_groups, labels, intervals=intervals, confidence=args.confidence,
                                title=f"explore allocation efficiency per run (ruleset {ruleset_name})")
            for target in targets:
                plot_paths += write_images(target, images)
        plot_paths += diagnosed.write(args.out)
        text = render_text(dict(header, added=added), groups, files, comparison.unscored, plot_paths,
                           comparison.other_arms)
        text += diagnosed.text("Diagnostics")
        if args.html or args.out:
            page = compare_page(header, groups, files, comparison.unscored, [w.as_dict() for w in warnings],
                                images.get("svg"), comparison.other_arms)
            for target in (args.html, args.out and os.path.join(args.out, "report.html")):
                if target:
                    write_file(target, page)
        if args.out:
            write_file(os.path.join(args.out, "compare.jsonl"), b"".join(jsonl(r) for r in records))
            write_csv(os.path.join(args.out, "groups.csv"), GROUP_COLUMNS, groups)
            write_csv(os.path.join(args.out, "files.csv"), FILE_COLUMNS, files)
            write_file(os.path.join(args.out, "summary.txt"), text)
    report_warnings(warnings)
    if args.json:
        write_stdout(b"".join(jsonl(r) for r in records))
    elif args.csv:
        write_csv(sys.stdout, GROUP_COLUMNS, groups)
    else:
        write_stdout(text)
    if any((u.get("reason") or "").startswith("internal error") for u in comparison.unscored):
        return EXIT_INTERNAL
    return EXIT_WARNINGS if comparison.unscored or warnings else EXIT_OK


def plot_label(group: str, args) -> str:
    """A group as the plot names it: `.` (files at the top of both passes) by the passes' names."""
    if group != ".":
        return group
    names = [os.path.basename(os.path.normpath(os.path.abspath(p))) for p in args.passes]
    return names[0] if len(set(names)) == 1 else " vs ".join(names)
