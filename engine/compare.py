"""`compare`'s job as the library does it: two sides' sessions collected, paired by group, shaped.

The face (cli/commands/compare.py, its modes arm_pattern.py and arm_table.py,
and check's maxDrop keys) parses options into a CompareRequest, calls
`compare` (or `arm_groups`, `compare_arm_pair`) and hands the CompareResult
to a format; the engine never prints or writes. The diagnostic join and the
pooled sufficiency are the face's collaborators, passed in (their files and
text are the face's).
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import Callable, Optional

import attrs

from citeledger.core.errors import UserError
from citeledger.core.metric import MetricOptions
from citeledger.corpus import score_corpus
from citeledger.corpus.measured import Measured
from citeledger.engine.judged import judged
from citeledger.engine.limits import as_typed, default_window_tokens, workers
from citeledger.engine.outcomes import completed_files
from citeledger.engine.passes import PassRow, pass_rows
from citeledger.harness.layout import arm_group, arm_label
from citeledger.report.compare import SIDES, Comparison
from citeledger.report.results import CompareResult
from citeledger.rules.loader import compile_pattern
from citeledger.rules.safety import UnsafePattern


def no_progress(total: int, label: str):
    """A progress factory that shows nothing (the library's default)."""
    return contextlib.nullcontext(None)


@attrs.frozen(slots=True, kw_only=True)
class CompareRequest:
    """What to compare and how: the face's options, typed (docs/compare.md names each)."""

    passes: tuple  # BASELINE NEW, or with arms the pass directories holding them
    ruleset: object  # the compiled ruleset the sessions are scored under
    ruleset_named: bool = False  # a sweep output's rows of that ruleset (else its first)
    arms: Optional[tuple] = None  # (baseline label, new label)
    key: str = "parent"  # parent, session or a regular expression
    seed: int = 0
    resamples: int = 10_000
    confidence: float = 0.95
    top: int = 3
    exclude: tuple = ()
    jobs: int = 0
    window_tokens: Optional[int] = None  # None: CG_WINDOW_TOKENS or 200,000, read when a session is scored
    sufficiency: bool = False
    # (total, label) -> a context manager yielding advance(n) or None: the face's progress bar
    progress: Callable = no_progress

    def window(self) -> int:
        """The context window the sessions are measured against."""
        return self.window_tokens if self.window_tokens is not None else default_window_tokens()


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


def add_arms(request: CompareRequest, comparison, warnings: list, used: set, added: list,
             diagnosed=None, pooled=None) -> None:
    """Every session of the two harness arms request.arms (baseline, new) under its passes, scored and
    added to `comparison` (and to `pooled` with sufficiency); a label with no run is a usage error."""
    names, passes = request.arms, request.passes
    wanted = tuple(arm_label(a) for a in names)  # as runs carry them
    if wanted[0] == wanted[1]:
        raise UserError(f"--arms {names[0]} {names[1]}: the two labels must differ")
    side_of = dict(zip(wanted, SIDES))
    seen_arms: dict = {}
    for path in passes:
        key = arm_key(path, len(passes) > 1) if request.key == "parent" else None
        for row in pass_rows(path, request, os.path.basename(os.path.normpath(path)) or path,
                             warnings, used, arms=wanted, added=added, diagnosed=diagnosed):
            seen_arms[row.get("arm")] = None
            comparison.add(side_of.get(row.get("arm"), "base"), row, key)
            if pooled is not None and request.sufficiency:
                pooled.add(side_of.get(row.get("arm"), "base"), row, key or comparison.key)
    for name, label in zip(names, wanted):  # a mistyped label would compare one arm with nothing
        if label not in seen_arms:
            found = ", ".join(sorted(a for a in seen_arms if a is not None)) or "none"
            raise UserError(f"--arms {name}: no run-{label}-N.jsonl or run-headless-{label}.jsonl under "
                            f"{', '.join(passes)} (arms found: {found})")


def arm_groups(request: CompareRequest, warnings: list) -> list[dict]:
    """compare --arms's group rows (medians, their difference, its bootstrap interval at the request's
    seed, resamples and confidence) for the arms request.arms under its passes, grouped by directory."""
    comparison = Comparison(key_function("parent"))
    add_arms(request, comparison, warnings, set(), [])
    return comparison.group_rows(request)


def compare(request: CompareRequest, diagnosed, pooled, warnings: list) -> CompareResult:
    """BASELINE NEW (or the two arms under the passes) compared: the CompareResult a format renders.
    `diagnosed` joins the diagnostic sidecars, `pooled` pools the sufficiency per group."""
    comparison = Comparison(key_function(request.key))
    used: set = set()
    added: list = []  # files read with a file given by name
    if request.arms:
        add_arms(request, comparison, warnings, used, added, diagnosed, pooled)
    else:
        for side, path in zip(SIDES, request.passes):
            for row in pass_rows(path, request, "baseline" if side == "base" else "new", warnings, used,
                                 added=added, diagnosed=diagnosed):
                comparison.add(side, row)
                if request.sufficiency:
                    pooled.add(side, row, comparison.key)
    warnings.extend(diagnosed.warnings())
    return compare_result(request, comparison, pooled, diagnosed, warnings,
                          " vs ".join(sorted(used)) or request.ruleset.name, added)


def compare_result(request: CompareRequest, comparison, pooled, diagnosed, warnings, ruleset_name: str,
                   added) -> CompareResult:
    """The comparison's group rows, intervals and files, with the header that names what was compared."""
    groups = comparison.group_rows(request)
    files = comparison.file_rows(request.top)
    if request.sufficiency:
        pooled.add_to(groups)
    header = {
        "record": "compare", "format": "citeledger-compare/1",
        "baseline": request.arms[0] if request.arms else request.passes[0],
        "new": request.arms[1] if request.arms else request.passes[1], "ruleset": ruleset_name,
        "key": request.key, "seed": request.seed, "resamples": request.resamples,
        "confidence": request.confidence, "quantiles": "type 7",
    }
    if request.arms:
        header.update(arms=list(request.arms), passes=list(request.passes))
    if added:  # read with a file given by name (the partial-session rule)
        header["added_inputs"] = added
    plotted = [g for g in groups if g["group"] != "(all)"]
    labels = tuple(request.arms) if request.arms else ("baseline", "new")
    return CompareResult(
        header=header, added=tuple(added), groups=tuple(groups), files=tuple(files),
        unscored=tuple(comparison.unscored), other_arms=tuple(comparison.other_arms), warnings=warnings,
        diagnostics=tuple(diagnosed.records()), diagnostics_text=diagnosed.text("Diagnostics"),
        sufficiency=pooled, with_sufficiency=bool(request.sufficiency), labels=labels,
        plot_groups=tuple((plot_label(g["group"], request.passes), [g["base_runs"], g["new_runs"]]) for g in plotted),
        intervals=tuple((g["ci_low"], g["ci_high"]) for g in plotted),
        behaviour=tuple(comparison.behaviour_arms(labels)),
    )


def plot_label(group: str, passes) -> str:
    """A group as the plot names it: `.` (files at the top of both passes) by the passes' names."""
    if group != ".":
        return group
    names = [os.path.basename(os.path.normpath(os.path.abspath(p))) for p in passes]
    return names[0] if len(set(names)) == 1 else " vs ".join(names)


def compare_arm_pair(request: CompareRequest, refs, unmatched, every_arm, warnings: list, diagnosed,
                     pooled) -> CompareResult:
    """--arm-pattern: arm request.arms[1] against request.arms[0] among the labelled `refs`, grouped by
    question; `unmatched` session keys and the sessions of an arm not in `every_arm` are listed."""
    base, new = request.arms
    comparison = Comparison(lambda row: row["group"])
    side_of = {base: "base", new: "new"}
    mine = [ref for ref in refs if ref.arm in side_of]
    added: list = []
    on = request.sufficiency
    with request.progress(len(mine), f"{new} vs {base}") as advance:
        extra = judged(Measured(None, MetricOptions(window_tokens=request.window())), on, request.ruleset)
        for one in score_corpus(mine, [request.ruleset], workers(request.jobs, len(mine)), advance, extra=extra,
                                shape=PassRow(request.ruleset, on)):
            warnings.extend(one.warnings)
            added.extend(completed_files([one.inputs], [request.passes[0]]))
            row = dict(one.row, arm=one.ref.arm, run=one.ref.run, question=one.ref.group)
            comparison.add(side_of[one.ref.arm], row)
            if on:
                pooled.add(side_of[one.ref.arm], row, comparison.key)
    for key in unmatched:
        comparison.unscored.append({"side": "-", "session": key, "status": "unmatched",
                                    "reason": "--arm-pattern does not match its path"})
    for ref in refs if every_arm else ():
        if ref.arm not in every_arm:
            comparison.other_arms.append({"session": ref.key, "arm": ref.arm})
    return compare_result(request, comparison, pooled, diagnosed, warnings, request.ruleset.name, added)
