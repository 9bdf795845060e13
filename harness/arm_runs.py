"""An arm's runs in one pass directory, as codegraph's `compare-arms.mjs` finds them, and
the figures each run gives the arm table (docs/harness.md "The arm table").

Discovery, per label, in the directory itself (not below it):
`run-<label>.jsonl` with its `.tN` segments is ONE run (run-all.sh's
multi-turn session) and wins; otherwise every `run-<label>-<i>.jsonl`, in
numeric order of i, each with its own `.tN` segments (ab-new-vs-baseline.sh).
A `.tN` file is always a segment of the run it hangs off, never a run.
"""

from __future__ import annotations

import os
import re
from typing import Optional

import attrs



@attrs.frozen
class ArmRun:
    """One run of an arm: its name (`label` or `label-i`) and its segment files in turn order."""

    name: str
    files: tuple[str, ...]


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def segments_of(folder: str, stem: str, names: list[str]) -> Optional[tuple[str, ...]]:
    """`stem.jsonl` and its `stem.tN.jsonl` segments, N ascending; None without `stem.jsonl`."""
    first = os.path.join(folder, f"{stem}.jsonl")
    if not os.path.isfile(first):
        return None
    turn = re.compile(rf"^{re.escape(stem)}\.t(\d+)\.jsonl$")
    found = sorted((int(m.group(1)), name) for name in names if (m := turn.match(name)))
    return (first, *(os.path.join(folder, name) for _, name in found))


def discover_runs(folder: str, label: str) -> list[ArmRun]:
    """Every run of arm `label` in `folder` (module docstring)."""
    names = _names(folder)
    session = segments_of(folder, f"run-{label}", names)
    if session is not None:
        return [ArmRun(name=label, files=session)]
    indexed = re.compile(rf"^run-{re.escape(label)}-(\d+)\.jsonl$")
    numbers = sorted(int(m.group(1)) for name in names if (m := indexed.match(name)))
    runs = []
    for i in numbers:  # run-x-1 and run-x-01 are both run 1, as Number() reads them
        files = segments_of(folder, f"run-{label}-{i}", names)
        if files is not None:
            runs.append(ArmRun(name=f"{label}-{i}", files=files))
    return runs


@attrs.frozen
class RunBehaviour:
    """What one run gives the arm table's behaviour, occupancy and contamination rows (and
    compare's, beside its statistics); None where the run's format logs no such figure.

    Built from the run's metric columns (`behaviour_of`): the arm table and
    compare read the same figures of the same columns. Occupancy tokens are
    rounded as the harness rounds them; `retrieval_share` is the retrieval
    residual (codegraph + file access) as a percentage of the final context
    (0 when the final context is 0).
    """

    name: str
    ok: Optional[bool]
    raced: Optional[bool]
    duration_s: Optional[float]
    tools: int
    reads: int
    search: int
    bash: int
    codegraph_calls: int
    cli_attempts: int
    cli_returned: Optional[int]
    final_context: Optional[int]
    codegraph_residual: Optional[int]
    file_access_residual: Optional[int]
    # False: the run's format ends no session with a result event (an interactive log), so a run
    # without one has not failed (compare's own view: n/a; the arm table counts it as !ok)
    result_expected: bool = attrs.field(default=True, kw_only=True)

    @property
    def retrieval_residual(self) -> Optional[int]:
        if self.codegraph_residual is None:
            return None
        return self.codegraph_residual + self.file_access_residual

    @property
    def retrieval_share(self) -> Optional[float]:
        if self.final_context is None:
            return None
        return self.retrieval_residual / self.final_context * 100 if self.final_context > 0 else 0


def behaviour_fields(columns: dict) -> dict:
    """RunBehaviour's fields (but its name) from a run's metric columns (a sweep row's `run_*`
    and `occupancy_*`); every figure None or 0 when the columns are absent (a row of an older sweep)."""
    get = columns.get
    duration = get("run_duration_s")
    return {
        "ok": get("run_ok"), "raced": get("run_raced"), "tools": get("run_tools") or 0,
        # The harness sums `duration_ms || 0`: a run that logs result events but no duration is 0s.
        "duration_s": duration if duration is not None or get("run_segments") is None else 0,
        "reads": get("run_named_read") or 0, "search": get("run_named_grep_glob") or 0,
        "bash": get("run_named_bash") or 0, "codegraph_calls": get("run_codegraph_calls") or 0,
        "cli_attempts": get("run_cli_attempts") or 0, "cli_returned": get("run_cli_returned"),
        "final_context": get("occupancy_final_context"), "codegraph_residual": get("occupancy_codegraph"),
        "file_access_residual": get("occupancy_file_access"),
    }


def behaviour_of(name: str, columns: dict) -> RunBehaviour:
    """A run's behaviour from its row; `result_expected` from its reader's declaration (the row's
    `reader`: Reader.ends_with_result)."""
    return RunBehaviour(name=name, **behaviour_fields(columns), result_expected=_ends_with_result(columns.get("reader")))


def _ends_with_result(name: Optional[str]) -> bool:
    from citeledger.core import ends_with_result, readers

    found = readers().get(name) if name else None
    return True if found is None else ends_with_result(found)


@attrs.frozen
class RunFigures(RunBehaviour):
    """What one run gives the whole arm table: its behaviour and its sufficiency and allocation.

    `alloc_envelope` and `alloc_used` are None for a run whose explore
    returned no section: it adds nothing to the pooled allocation (not a zero).
    """

    sufficiency_answered: int
    sufficiency_counts: tuple[int, ...]  # per BUCKETS
    sufficiency_errors: int
    alloc_calls: int
    alloc_envelope: Optional[int]
    alloc_used: Optional[int]

    @property
    def alloc_efficiency(self) -> Optional[float]:
        """The run's allocation efficiency as a percentage; None without an envelope."""
        return self.alloc_used / self.alloc_envelope * 100 if self.alloc_envelope else None


def run_figures(name: str, columns: dict, score, sufficiency) -> RunFigures:
    """A run's figures from its metric columns (corpus.measured.row_of of its `run` and `occupancy` records),
    its score and its sufficiency."""
    return RunFigures(
        name=name, **behaviour_fields(columns),
        sufficiency_answered=sufficiency.answered, sufficiency_counts=tuple(sufficiency.counts),
        sufficiency_errors=sufficiency.errors, alloc_calls=len(score.calls),
        alloc_envelope=score.envelope or None, alloc_used=score.used if score.envelope else None,
    )
