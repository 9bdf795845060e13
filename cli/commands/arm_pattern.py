"""Arms and questions from any benchmark's layout: `compare ROOT --arms A B [C ...] --arm-pattern REGEX`.

A benchmark lays its runs out as it likes (EnterpriseBench:
`<run>/<task>_<arm>/agent_trace.jsonl`). The pattern, searched in each
session's path relative to ROOT, names the `arm` and the `question` (named
groups); a session it does not match, or of an arm not asked for, is listed,
never scored. Sessions of one question are compared across arms (the group
is the question; several sessions of one question and arm are its runs), so
compare's table, statistics and `--harness` arm table are those of
codegraph's passes. With more than two arms, the first is the baseline and
each other arm is compared with it, one comparison after another.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from typing import Optional

import attrs

from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, UserError
from citeledger.engine.arms import arm_pattern, check_arms_found, discover_arms

def check_arm_pattern_args(args) -> None:
    if not args.arms or len(args.arms) < 2:
        raise UserError("--arm-pattern: give two or more arms, --arms A B [C ...] (the first is the baseline)")
    if len(set(args.arms)) != len(args.arms):
        raise UserError(f"--arms {' '.join(args.arms)}: an arm is named twice")
    if len(args.passes) != 1:
        raise UserError(f"--arm-pattern: one ROOT directory, not {len(args.passes)}")
    if args.out and len(args.arms) > 2:
        raise UserError("--out with --arm-pattern takes two arms (one comparison); "
                        "give the others' comparisons --json or --html")
    if not os.path.isdir(args.passes[0]):
        raise UserError(f"{args.passes[0]}: not a directory")


def run_arm_pattern(args) -> int:
    """compare ROOT --arms A B [C ...] --arm-pattern REGEX: each arm after the first against it."""
    from citeledger.cli.commands.common import one_ruleset, report_warnings
    from citeledger.cli.commands.compare import _write_files, compare_request
    from citeledger.engine.compare import compare_arm_pair
    from citeledger.rules.compiled import load_many
    from citeledger.cli.formats import check, chosen, write
    from citeledger.cli.output import output_dir, write_stdout
    from citeledger.cli.sidecars import Diagnosed
    from citeledger.engine.sufficiency import GroupPool

    check_arm_pattern_args(args)
    fmt = chosen(args)
    check(fmt, "compare")
    pattern = arm_pattern(args.arm_pattern)
    rulesets = load_many([one_ruleset(args.ruleset, "compare")])
    refs, unmatched, warnings = discover_arms(args.passes[0], pattern, args.exclude)
    check_arms_found(args.passes[0], args.arms, refs)
    status = EXIT_OK
    pages: list = []  # (arm, its group records, its page) for the page of every arm
    for number, new in enumerate(args.arms[1:]):
        pair = argparse.Namespace(**{**vars(args), "arms": [args.arms[0], new], "key": "question",
                                     "html": _html_for(args.html, new, len(args.arms))})
        pooled, diagnosed, said = GroupPool(), Diagnosed(pair, rulesets[0], pooled=False), list(warnings)
        request = compare_request(pair, rulesets[0], arms=(args.arms[0], new))
        result = compare_arm_pair(request, refs, unmatched if number == 0 else (),
                                  tuple(args.arms) if number == 0 else (), said, diagnosed, pooled)
        result = attrs.evolve(result, header={**result.header, "arm_pattern": args.arm_pattern})
        pages.append((new, list(result.groups), os.path.basename(pair.html) if pair.html else ""))
        with contextlib.ExitStack() as stack:
            if pair.out:
                stack.enter_context(output_dir(pair.out))
            result, wrote = _write_files(pair, result, diagnosed)
        report_warnings(said)
        if fmt == "text" and number:
            write_stdout("\n")
        write(attrs.evolve(result, brief=args.brief), fmt)
        if fmt == "text":
            write_stdout(wrote)
        if any((u.get("reason") or "").startswith("internal error") for u in result.unscored):
            status = EXIT_INTERNAL
        elif (result.unscored or said) and status == EXIT_OK:
            status = EXIT_WARNINGS
    if args.html and len(args.arms) > 2:  # PATH itself: every arm side by side
        from citeledger.cli.output import write_file
        from citeledger.report.html.arms import arms_page

        wrote = write_file(args.html, arms_page(args.passes[0], rulesets[0].name, args.arms, pages))
        if fmt == "text":
            write_stdout(f"wrote {wrote}\n")
    return status


def _html_for(path: Optional[str], arm: str, arms: int) -> Optional[str]:
    """--html PATH for one comparison: PATH itself with two arms, else PATH-<arm>.html (PATH is
    then the page of every arm: report/html/arms.py)."""
    if not path or arms <= 2:
        return path
    stem, suffix = os.path.splitext(path)
    return f"{stem}-{arm}{suffix or '.html'}"


def run_arm_pattern_table(args) -> int:
    """compare ROOT --arms A B [C ...] --arm-pattern REGEX --harness: codegraph's arm table, each
    arm's runs its sessions (named by question), measured and rendered as a pass's runs are."""
    from citeledger.cli.commands.arm_table import check_harness_args
    from citeledger.cli.commands.common import report_warnings, ruleset_from
    from citeledger.cli.output import write_stdout
    from citeledger.engine.arm_runs import measure_arms
    from citeledger.harness.arm_runs import ArmRun
    from citeledger.report.arm_table import render_arm_table

    check_harness_args(args)
    pattern = arm_pattern(args.arm_pattern)
    refs, _, warnings = discover_arms(args.passes[0], pattern, args.exclude)
    check_arms_found(args.passes[0], args.arms, refs)
    ruleset = ruleset_from(args)
    found = [(label, [ArmRun(name=ref.group, files=tuple(ref.files)) for ref in refs if ref.arm == label])
             for label in args.arms]
    measured = measure_arms(found, ruleset, warnings, window_tokens=getattr(args, "window_tokens", None))
    arms = [(label, [one.figures for one in runs]) for label, runs in measured]
    write_stdout(render_arm_table(args.passes[0], arms))
    report_warnings(warnings, "score --harness of the run")
    return EXIT_OK
