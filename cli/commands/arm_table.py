"""`citeledger compare PASS --arms L1 L2 [L3 ...] --harness`: codegraph's arm table.

Byte for byte what `node compare-arms.mjs PASS L1 L2 ...` prints: the arms'
runs found in the one directory PASS as the script finds them
(harness/arm_runs.py), each run's segments read exactly as given (as
`score --harness` reads them), measured, scored and rendered by
report/arm_table.py. An arm without runs is a `WARN` line on stderr and left
out; every arm without runs is an error.
"""

from __future__ import annotations

from citeledger.cli.commands.common import read_session, report_warnings, ruleset_from
from citeledger.cli.metrics import measured
from citeledger.cli.output import write_stderr, write_stdout
from citeledger.core.accountant import score
from citeledger.core.errors import EXIT_OK, UserError

# Options of the statistics view that the harness's table has no place for.
_NOT_WITH = (("json", "--json"), ("csv", "--csv"), ("format", "--format"), ("html", "--html"), ("out", "--out"),
             ("plot", "--plot"), ("sufficiency", "--sufficiency"))


def check_harness_args(args) -> None:
    given = [flag for attr, flag in _NOT_WITH if getattr(args, attr, None)]
    if given:
        raise UserError(f"compare --harness prints codegraph's arm table: not with {', '.join(given)}")
    if not args.arms:
        raise UserError("compare --harness: give the arms' labels, --arms L1 L2 [L3 ...]")
    if len(args.passes) != 1:
        raise UserError("compare --harness: one PASS directory (compare-arms.mjs reads one), "
                        f"not {len(args.passes)}")


def measure_run(run, ruleset, args, warnings: list):
    from citeledger.core import metrics
    from citeledger.corpus.measured import row_of
    from citeledger.harness.arm_runs import run_figures
    from citeledger.harness.sufficiency import sufficiency

    transcript = read_session(list(run.files), None, ruleset)
    records = measured(transcript, args)
    scored = score(transcript, ruleset)
    warnings.extend(scored.warnings)
    judged = sufficiency(transcript, ruleset.explore_tool)
    return run_figures(run.name, row_of(records, metrics()), scored, judged)


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
    arms = [(label, [measure_run(run, ruleset, args, warnings) for run in runs]) for label, runs in found if runs]
    write_stdout(render_arm_table(folder, arms))
    # The input's warnings (a killed run's half-written line) on stderr; exit 0, as the script's.
    report_warnings(warnings, "score --harness of the run")
    return EXIT_OK
