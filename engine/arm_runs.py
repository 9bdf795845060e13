"""`compare --harness`'s job: each arm's runs of a pass read, measured, scored and judged once.

A run's segments are read exactly as given (as `score --harness` reads them);
its figures feed the arm table (report/arm_table.py) and, when `brief` is
asked (`--runs`), its `parse-run.mjs --brief` block is rendered beside them.
The face (cli/commands/arm_table.py, arm_pattern.py) finds the runs, says
which arm has none, and writes.
"""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.core.accountant import score
from citeledger.engine.measures import measured
from citeledger.engine.reading import read_session
from citeledger.harness.arm_runs import ArmRun, RunFigures


@attrs.frozen(slots=True, kw_only=True)
class MeasuredRun:
    """One run of an arm as the pass report uses it: its figures for the table and, with
    `--runs`, its `parse-run.mjs --brief` block."""

    arm: str
    run: ArmRun
    figures: RunFigures
    block: Optional[str]


def measure_run(label: str, run: ArmRun, ruleset, warnings: list, *, window_tokens: Optional[int] = None,
                brief: bool = False) -> MeasuredRun:
    """Read, measure and score one run once: its table figures and, when `brief`, its brief block."""
    from citeledger.core import metrics
    from citeledger.corpus.measured import row_of
    from citeledger.harness.arm_runs import run_figures
    from citeledger.harness.sufficiency import sufficiency

    transcript = read_session(list(run.files), None, ruleset)
    records = measured(transcript, window_tokens)
    scored = score(transcript, ruleset)
    warnings.extend(scored.warnings)
    judged = sufficiency(transcript, ruleset.explore_tool)
    block = None
    if brief:
        from citeledger.report.harness import render_harness

        block = render_harness(list(run.files), records["run"], records["occupancy"], scored, judged, brief=True)
    figures = run_figures(run.name, row_of(records, metrics()), scored, judged)
    return MeasuredRun(arm=label, run=run, figures=figures, block=block)


def measure_arms(found, ruleset, warnings: list, *, window_tokens: Optional[int] = None,
                 brief: bool = False) -> list[tuple[str, list[MeasuredRun]]]:
    """(label, its measured runs) per (label, runs) of `found`, in the order given."""
    return [(label, [measure_run(label, run, ruleset, warnings, window_tokens=window_tokens, brief=brief)
                     for run in runs]) for label, runs in found]
