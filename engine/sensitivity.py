"""`sensitivity`'s job: every session scored once per ruleset, its verdicts pooled per ruleset
and slice, the deltas from the base (report/sensitivity.py's accumulator).

The face (cli/commands/sensitivity.py) loads the rulesets (the base first),
finds the sessions, calls `sensitivity` and writes the SensitivityResult
through the formats; the engine never prints or writes.
"""

from __future__ import annotations

from typing import Callable, Optional

import attrs

from citeledger.corpus import score_corpus
from citeledger.engine.limits import workers
from citeledger.engine.outcomes import completed_files, no_progress, outcome_inputs
from citeledger.report.results import SensitivityResult
from citeledger.report.sensitivity import Sensitivity, Verdicts
from citeledger.report.sweep import turn_counts

FORMAT = "citeledger-sensitivity/1"


@attrs.frozen(slots=True, kw_only=True)
class SensitivityRequest:
    """What to score and under which rulesets (docs/sensitivity.md names each option)."""

    paths: tuple  # the PATHs as given (the header names them)
    rulesets: tuple  # compiled rulesets, the base first
    jobs: int = 0
    # (total, label) -> a context manager yielding advance(n) or None: the face's progress bar
    progress: Callable = no_progress


def sensitivity(request: SensitivityRequest, refs, warnings: list) -> SensitivityResult:
    """Score the sessions `refs` under every ruleset: the result record (its `internal` the sessions
    whose scoring met a bug); the sessions' warnings are added to `warnings`."""
    names = [r.name for r in request.rulesets]
    measured = Sensitivity(names, base=0)
    internal = unreadable = 0
    turns: list[int] = []
    read: list[tuple] = []  # (root, files read) per session
    with request.progress(len(refs), "sensitivity") as advance:
        for one in score_corpus(refs, list(request.rulesets), workers(request.jobs, len(refs)), advance,
                                shape=verdicts_of):
            internal += bool(one.error and one.error.startswith("internal error"))
            unreadable += one.error is not None
            warnings.extend(one.warnings)
            turns.append(one.ref.turns)
            read.append(one.inputs)
            measured.add(one.ref.turns, one.verdicts)
    header = {
        "record": "sensitivity", "format": FORMAT, "paths": list(request.paths), "base": names[0],
        "rulesets": names, "sessions": len(refs), **turn_counts(turns),
        "unreadable": unreadable, "quantiles": "type 7",
    }
    added = completed_files(read, request.paths)
    if added:  # read with a file given by name (the partial-session rule)
        header["added_inputs"] = added
    return SensitivityResult(header=header, added=tuple(added), rows=tuple(measured.rows()),
                             deltas=tuple(measured.deltas()), warnings=warnings, internal=internal)


@attrs.frozen(slots=True, kw_only=True)
class SensitivitySession:
    """What sensitivity keeps of one session, made in the worker (score_corpus's `shape`):
    the whole score, every call and its response, never crosses back."""

    ref: object
    error: Optional[str]
    warnings: tuple
    inputs: tuple  # (root, every file read): outcome_inputs
    verdicts: tuple  # a Verdicts (or None) per ruleset


def verdicts_of(outcome) -> SensitivitySession:
    return SensitivitySession(ref=outcome.ref, error=outcome.error, warnings=tuple(outcome.warnings),
                              inputs=outcome_inputs(outcome),
                              verdicts=tuple(None if s is None else Verdicts.of(s) for s in outcome.scores))
