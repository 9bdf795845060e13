"""One side of a comparison read: a pass's sessions scored (or a sweep output's rows), as rows.

A pass is a directory (or file) of sessions, or a sweep output holding their
rows. Each session becomes one row of the sweep's columns with its `run`
(and, when arms are asked for, its `arm`); sessions of other arms come back as
rows with status `other-arm`, unscored. The scoring runs in score_corpus's
workers, which ship back only the row (PassRow), never the whole score.
"""

from __future__ import annotations

import os
from typing import Iterator, Optional

import attrs
import orjson

from citeledger.core.errors import InputError, UserError
from citeledger.core.metric import MetricOptions
from citeledger.corpus import discover, score_corpus
from citeledger.corpus.measured import Measured, split_measured
from citeledger.engine.judged import judged, split
from citeledger.engine.limits import workers
from citeledger.engine.outcomes import completed_files, outcome_inputs
from citeledger.harness.layout import arm_and_run, segment
from citeledger.report.sufficiency import counted_dict
from citeledger.report.tables import SWEEP_FORMAT, session_rows


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


def pass_rows(path: str, request, label: str, warnings: list, used: set, arms=None,
              added: Optional[list] = None, diagnosed=None) -> Iterator[dict]:
    """Session rows of one pass; `used` collects the ruleset names they were scored under.

    With `arms`, only sessions of those harness arms are scored; each row gets
    `arm` and `run` (from its name, harness/layout.py), and the others come back
    as rows with status `other-arm`, unscored. `diagnosed` (the face's diagnostic
    join, cli.sidecars.Diagnosed) joins the sessions that have a sidecar, by arm
    (else by `label`).
    """
    found = sweep_file(path)
    if found:
        yield from _swept_rows(found, request, used, arms)
        return
    used.add(request.ruleset.name)
    added = [] if added is None else added
    refs, found_warnings = discover([path], list(request.exclude))
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
    with request.progress(len(refs), label) as advance:
        join = diagnosed.join(label, by_arm=bool(arms)) if diagnosed is not None else None
        extra = judged(Measured(join, MetricOptions(window_tokens=request.window())), request.sufficiency,
                       request.ruleset)
        for one in score_corpus(refs, [request.ruleset], workers(request.jobs, len(refs)), advance, extra=extra,
                                shape=PassRow(request.ruleset, request.sufficiency)):
            warnings.extend(one.warnings)
            added.extend(completed_files([one.inputs], [path]))
            if diagnosed is not None:
                diagnosed.add_joined(one.ref, one.scored, one.diag, one.ref.arm if arms else label)
            yield dict(one.row, arm=one.ref.arm, run=one.ref.run) if arms else dict(one.row, run=one.ref.run)


def _swept_rows(found: str, request, used: set, arms) -> Iterator[dict]:
    """The rows of a sweep output, of the request's ruleset (else its first)."""
    for row in read_sweep(found, request.ruleset.name if request.ruleset_named else None):
        used.add(row["ruleset"])
        if request.sufficiency and "sufficiency" not in row:
            raise InputError(found, "a sweep output made without --sufficiency: sweep again with it, "
                             "or compare without --sufficiency")
        if arms:
            row = dict(row, **row_arm(row))
            if row["arm"] not in arms:
                row["status"] = "other-arm"
        yield row


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
