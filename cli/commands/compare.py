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
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, InputError, UserError
from citeledger.core.jsstr import percent, to_fixed
from citeledger.rules.loader import compile_pattern

from citeledger.cli.output import output_dir, write_file, write_images, write_stdout
from citeledger.cli.progress import progress_bar
from citeledger.report.html import compare_page
from citeledger.cli.commands.common import warn
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
        description=(
            "Compare two passes. BASELINE and NEW are each a directory or file of transcripts (scored "
            "now) or a sweep output (sweep --json file, or a sweep --out DIR). Sessions are grouped "
            "by --key (default: the session's parent directory relative to the pass's root); per "
            "group: every run's efficiency, both medians, their difference (new - baseline) with a "
            "percentile bootstrap interval (independent resamples of each side; seed stated), and "
            "the files whose pooled envelope share moved most. " + QUANTILE_NOTE + "."
        ),
    )
    p.add_argument("baseline", metavar="BASELINE", help="baseline pass: transcripts, or a sweep output")
    p.add_argument("new", metavar="NEW", help="new pass: transcripts, or a sweep output")
    p.add_argument("--key", default="parent",
                   help="group sessions by: 'parent' (directory, default), 'session' (the session's path), "
                   "or a regular expression searched in the session's path (its first group, else the match)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default: %(default)s)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval confidence (default: %(default)s)")
    p.add_argument("--top", type=int, default=3, metavar="K", help="files listed per group (default: %(default)s)")
    p.add_argument("--plot", metavar="PATH", help="write the plot to PATH.png and PATH.svg (--out writes DIR/compare.*)")
    add_corpus_options(p, "pick the ruleset (only the first is compared)")
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


def pass_rows(path: str, rulesets, args, label: str, warnings: list, used: set) -> Iterator[dict]:
    """Session rows of one pass; `used` collects the ruleset names they were scored under."""
    found = sweep_file(path)
    if found:
        for row in read_sweep(found, rulesets[0].name if args.ruleset else None):
            used.add(row["ruleset"])
            yield row
        return
    used.add(rulesets[0].name)
    refs, found_warnings = discover([path])
    warnings.extend(found_warnings)
    if not refs:
        raise UserError(f"{path}: no sessions found (and not a sweep output)")
    with progress_bar(len(refs), label, args.quiet) as advance:
        for outcome in score_corpus(refs, rulesets[:1], args.jobs, advance):
            warnings.extend(outcome.warnings)
            yield session_rows(outcome, rulesets[:1])[0]


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
    runs: list = attrs.Factory(list)  # (session, efficiency) in the pass's order
    envelope: int = 0
    chars: dict = attrs.Factory(dict)  # path -> pooled chars
    not_scored: int = 0


class Comparison:
    """Per-group accumulators: numbers and file totals, never whole sessions."""

    def __init__(self, key):
        self.key = key
        self.groups: dict[str, dict[str, Side]] = {}
        self.unscored: list[dict] = []

    def add(self, side: str, row: dict) -> None:
        group = self.key(row)
        if group is None:
            self.unscored.append({"side": side, "session": row["session"], "status": "ungrouped",
                                  "reason": "--key pattern does not match the session's path"})
            return
        s = self.groups.setdefault(group, {"base": Side(), "new": Side()})[side]
        if row["status"] != "scored":
            s.not_scored += 1
            self.unscored.append({"side": side, "session": row["session"], "status": row["status"], "reason": row["reason"]})
            return
        s.runs.append((row["session"], row["efficiency"]))
        s.envelope += row["envelope"]
        for path, chars, _channel in row["files"]:
            s.chars[path] = s.chars.get(path, 0) + chars

    def group_rows(self, args) -> list[dict]:
        rows = []
        names = sorted(self.groups)
        everything = {"base": [], "new": []}
        for name in names + ["(all)"]:
            if name == "(all)":
                runs = everything
                not_scored = {side: sum(self.groups[g][side].not_scored for g in names) for side in SIDES}
            else:
                sides = self.groups[name]
                runs = {side: [e for _, e in sides[side].runs] for side in SIDES}
                not_scored = {side: sides[side].not_scored for side in SIDES}
                if runs["base"] and runs["new"]:  # (all) pools paired groups only: a one-sided
                    for side in SIDES:            # group would move a median by itself
                        everything[side].extend(runs[side])
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


def render_text(header: dict, groups: list[dict], files: list[dict], unscored: list[dict], plot: list[str]) -> str:
    out = (
        f"citeledger compare — baseline {header['baseline']} vs new {header['new']} "
        f"(ruleset {header['ruleset']}, grouped by {header['key']})\n"
    )
    conf = int(round(header["confidence"] * 100))
    headers = ("group", "base runs", "new runs", "base med", "new med", "diff (pp)", f"{conf}% CI (pp)")
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
    if files:
        out += "\nfiles whose envelope share moved most (pooled over the group's scored runs):\n"
        body = [(f["group"], f["path"], percent(f["base_share"]), percent(f["new_share"]), points(f["delta"])) for f in files]
        out += layout(("group", "file", "base", "new", "moved (pp)"), body, (False, False, True, True, True))
    if unscored:
        out += f"\nnot compared ({len(unscored)}):\n"
        for u in unscored:
            out += f"  {u['side']:<4}  {u['status']:<10}  {u['session']}  — {u['reason']}\n"
    out += ("\nplot: " + ", ".join(plot) + "\n") if plot else "\nno plot written (give --out DIR or --plot PATH)\n"
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
    rulesets = load_rulesets(args.ruleset)
    comparison = Comparison(key_function(args.key))
    warnings: list = []
    used: set = set()
    for side, path in zip(SIDES, (args.baseline, args.new)):
        if not os.path.exists(path):
            raise InputError(path, "no such file or directory")
        for row in pass_rows(path, rulesets, args, "baseline" if side == "base" else "new", warnings, used):
            comparison.add(side, row)
    ruleset_name = " vs ".join(sorted(used)) or rulesets[0].name
    for w in warnings:
        warn(w)
    groups = comparison.group_rows(args)
    files = comparison.file_rows(args.top)
    header = {
        "record": "compare", "format": "citeledger-compare/1",
        "baseline": args.baseline, "new": args.new, "ruleset": ruleset_name,
        "key": args.key, "seed": args.seed, "resamples": args.resamples, "confidence": args.confidence,
        "quantiles": "type 7",
    }
    records = [header] + groups + files + [{"record": "unscored", **u} for u in comparison.unscored]
    records += [{"record": "warning", **w.as_dict()} for w in warnings]
    with contextlib.ExitStack() as stack:
        if args.out:
            stack.enter_context(output_dir(args.out))
        plot_paths = []
        targets = [p for p in (args.plot, os.path.join(args.out, "compare") if args.out else None) if p]
        images = {}
        if targets or args.html:
            from citeledger.report.plot import strip_plot

            series_groups = [(g["group"], [g["base_runs"], g["new_runs"]]) for g in groups if g["group"] != "(all)"]
            images = strip_plot(series_groups, ("baseline", "new"),
                                title=f"explore allocation efficiency per run (ruleset {ruleset_name})")
            for target in targets:
                plot_paths += write_images(target, images)
        text = render_text(header, groups, files, comparison.unscored, plot_paths)
        if args.html or args.out:
            page = compare_page(header, groups, files, comparison.unscored, [w.as_dict() for w in warnings],
                                images.get("svg"))
            for target in (args.html, args.out and os.path.join(args.out, "report.html")):
                if target:
                    write_file(target, page)
        if args.out:
            write_file(os.path.join(args.out, "compare.jsonl"), b"".join(jsonl(r) for r in records))
            write_csv(os.path.join(args.out, "groups.csv"), GROUP_COLUMNS, groups)
            write_csv(os.path.join(args.out, "files.csv"), FILE_COLUMNS, files)
            write_file(os.path.join(args.out, "summary.txt"), text)
    if args.json:
        write_stdout(b"".join(jsonl(r) for r in records))
    elif args.csv:
        write_csv(sys.stdout, GROUP_COLUMNS, groups)
    else:
        write_stdout(text)
    if any((u.get("reason") or "").startswith("internal error") for u in comparison.unscored):
        return EXIT_INTERNAL
    return EXIT_WARNINGS if comparison.unscored or warnings else EXIT_OK
