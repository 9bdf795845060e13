"""`citeledger compare PASS --arms L1 L2 [L3 ...] --harness`: codegraph's arm table.

Byte for byte what `node compare-arms.mjs PASS L1 L2 ...` prints: the arms'
runs found in the one directory PASS as the script finds them
(harness/arm_runs.py), each run's segments read exactly as given (as
`score --harness` reads them), measured, scored and rendered by
report/arm_table.py. An arm without runs is a `WARN` line on stderr and left
out; every arm without runs is an error.

With `--runs` the whole pass is reported in this one process: before the table,
for each arm in the order given and each of its runs in run order, a line
`-- <the run's file stem> --` and the run's `parse-run.mjs --brief` block (the
run's segments read with it, as `score --harness --brief` reads them); each run is
read, measured and scored once for both. `--json` prints one object: every run's
record (arm, stem, files, figures, block) beside the table's text.
"""

from __future__ import annotations

import os
import attrs

from citeledger.harness.arm_runs import ArmRun
from citeledger.cli.commands.common import report_warnings, ruleset_from
from citeledger.cli.output import write_stderr, write_stdout
from citeledger.core.errors import EXIT_OK, UserError
from citeledger.engine.arm_runs import measure_arms

# Options of the statistics view that the harness's table has no place for.
_NOT_WITH = (("csv", "--csv"), ("format", "--format"), ("html", "--html"), ("out", "--out"),
             ("plot", "--plot"), ("sufficiency", "--sufficiency"))


def check_harness_args(args) -> None:
    given = [flag for attr, flag in _NOT_WITH if getattr(args, attr, None)]
    if getattr(args, "json", False) and not getattr(args, "runs", False):
        given.insert(0, "--json (but with --runs)")
    if given:
        raise UserError(f"compare --harness prints codegraph's arm table: not with {', '.join(given)}")
    if not args.arms:
        raise UserError("compare --harness: give the arms' labels, --arms L1 L2 [L3 ...]")
    if len(args.passes) != 1:
        raise UserError("compare --harness: one PASS directory (compare-arms.mjs reads one), "
                        f"not {len(args.passes)}")


def run_stem(run: ArmRun) -> str:
    """The run's file stem as the harness names it (`run-new-1`, `run-headless-with`)."""
    return os.path.basename(run.files[0])[: -len(".jsonl")]


def runs_text(measured_runs) -> str:
    """Every run's `-- stem --` line and brief block, in the order measured."""
    return "".join(f"-- {run_stem(one.run)} --\n{one.block}" for one in measured_runs)


def pass_json(folder: str, measured_runs, table: str) -> bytes:
    """`compare --harness --runs --json`: each run's record beside the table's text."""
    import orjson

    runs = [{"arm": one.arm, "run": run_stem(one.run), "files": list(one.run.files),
             "figures": attrs.asdict(one.figures), "report": one.block} for one in measured_runs]
    return orjson.dumps({"record": "pass", "pass": folder, "runs": runs, "table": table}) + b"\n"


def run_arm_table(args) -> int:
    from citeledger.harness.arm_runs import discover_runs
    from citeledger.report.arm_table import render_arm_table

    check_harness_args(args)
    folder = args.passes[0]
    ruleset = ruleset_from(args)
    found = [(label, discover_runs(folder, label)) for label in args.arms]
    if not any(runs for _, runs in found):
        raise UserError(f"no run logs for {'/'.join(args.arms)} in {folder}")
    for label, runs in found:
        if not runs:
            write_stderr(f"  WARN: no run logs for arm '{label}' in {folder}\n")
    warnings: list = []
    per_arm = measure_arms(found, ruleset, warnings, window_tokens=getattr(args, "window_tokens", None),
                           brief=bool(getattr(args, "runs", False)))
    measured_runs = [one for _, ones in per_arm for one in ones]  # an arm named twice is printed twice, as the script does
    arms = [(label, [one.figures for one in ones]) for label, ones in per_arm if ones]
    table = render_arm_table(folder, arms)
    if getattr(args, "json", False):
        write_stdout(pass_json(folder, measured_runs, table))
    else:
        write_stdout((runs_text(measured_runs) if getattr(args, "runs", False) else "") + table)
    # The input's warnings (a killed run's half-written line) on stderr; exit 0, as the script's.
    report_warnings(warnings, "score --harness of the run")
    return EXIT_OK
