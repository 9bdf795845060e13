"""codegraph's explore diagnostic sidecar (`CODEGRAPH_EXPLORE_DEBUG=FILE`).

One JSON object per explore call, appended across calls and runs
(fixtures/DIAGNOSTIC.md has the format as codegraph 1.6.1 writes it). Read
here into frozen records; which transcript call a report belongs to is the
diagnostics report's business (citeledger.report.diagnostics). A line that
is not JSON, is truncated, or is not an explore report is a warning naming
the file and line, and is never joined.
"""

from __future__ import annotations

import os
import re
from typing import Optional

import attrs

from citeledger.core import InputError, InputWarning, Origin, reading
from citeledger.infra.jsonl import read_jsonl
from citeledger.infra.outside import as_double

# The per-file ranking flags codegraph reports, in its order.
FLAGS = ("pinned", "named", "central", "entry", "spine", "lowValue", "generated", "ambientDeclaration")


@attrs.frozen
class FileDecision:
    """The allocator's record of one ranked candidate file."""

    path: str
    rank: int
    score: float
    graph_score: float
    term_hits: int
    flags: tuple[str, ...]  # the FLAGS that are true
    render: Optional[str]  # whole, clusters, focused, skeleton, ...; None: never rendered
    skipped: Optional[str]  # why it never rendered (max-files, cliff, ...)
    clipped: bool
    allowance: Optional[int]
    final_chars: int  # source chars in the final text (fence contents only)
    share: float  # final_chars / envelope chars, as codegraph rounds it
    emitted_chars: Optional[int] = None  # source chars the render loop emitted (before the hard ceiling)
    allocated_share: Optional[float] = None  # emitted_chars / envelope.allocatedChars, as codegraph rounds it


@attrs.frozen
class ExploreReport:
    """One explore call's diagnostic report."""

    origin: Origin = attrs.field(eq=False)  # where it is: equal reports compare equal wherever they sit
    query: str
    project_root: str
    chars: int  # envelope.chars: the response's length in UTF-16 code units (0 when nothing was found)
    budget: int  # budget.maxOutputChars
    note: Optional[str]  # set when explore found nothing
    files: tuple[FileDecision, ...]  # in the report's order (by emitted chars, not rank)
    indexed_file_count: Optional[int] = None
    allocated_chars: Optional[int] = None  # envelope.allocatedChars: the render loop's length before the cut
    over_budget: bool = False  # envelope.overBudget
    truncated: bool = False  # envelope.truncated: cut by the hard ceiling
    hard_ceiling: Optional[int] = None  # budget.hardCeiling (0 when nothing was found)

    @property
    def rendered(self) -> frozenset:
        return frozenset(f.path for f in self.files if f.render is not None)


class _Bad(Exception):
    pass


def _get(obj: dict, key: str, kind, optional: bool = False):
    value = obj.get(key)
    if value is None and optional:
        return None
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise _Bad(f"{key} is {'missing' if key not in obj else type(value).__name__}")
    if kind is int or kind is float:
        return as_double(value)  # never a Python int past 2^53 (infra/outside.py)
    return value


def _decision(item) -> FileDecision:
    if not isinstance(item, dict):
        raise _Bad("a files[] item is not an object")
    try:
        allocated_share = _get(item, "allocatedShare", float, True)
        return FileDecision(
            path=_get(item, "path", str), rank=_get(item, "rank", int), score=float(_get(item, "score", float)),
            graph_score=float(_get(item, "graphScore", float)), term_hits=_get(item, "termHits", int),
            flags=tuple(f for f in FLAGS if item.get(f) is True),
            render=_get(item, "render", str, True), skipped=_get(item, "skipped", str, True),
            clipped=item.get("clipped") is True, allowance=_get(item, "allowance", int, True),
            final_chars=_get(item, "finalChars", int), share=float(_get(item, "share", float)),
            emitted_chars=_get(item, "emittedChars", int, True),
            allocated_share=None if allocated_share is None else float(allocated_share),
        )
    except _Bad as exc:
        raise _Bad(f"files[] item {item.get('path')!r}: {exc}") from None


def parse_report(value, origin: Origin, tool: Optional[str]) -> ExploreReport:
    """One decoded line as a report of the explore tool `tool` (its `tool` is that name: the
    ruleset's explore source's option; None, the ruleset reads no explore tool); raises
    ValueError saying what is wrong."""
    try:
        if not isinstance(value, dict):
            raise _Bad("not a JSON object")
        if tool is None:
            raise _Bad("the ruleset counts no explore tool")
        if value.get("tool") != tool:
            raise _Bad(f"tool is {value.get('tool')!r}, not {tool!r}")
        envelope = _get(value, "envelope", dict)
        budget = _get(value, "budget", dict)
        files = _get(value, "files", list)
        return ExploreReport(
            origin=origin, query=_get(value, "query", str), project_root=_get(value, "projectRoot", str, True) or "",
            chars=_get(envelope, "chars", int), budget=_get(budget, "maxOutputChars", int),
            note=_get(value, "note", str, True), files=tuple(_decision(f) for f in files),
            indexed_file_count=_get(value, "indexedFileCount", int, True),
            allocated_chars=_get(envelope, "allocatedChars", int, True),
            over_budget=envelope.get("overBudget") is True, truncated=envelope.get("truncated") is True,
            hard_ceiling=_get(budget, "hardCeiling", int, True),
        )
    except _Bad as exc:
        raise ValueError(str(exc)) from None


# The numbers of a report and of a file decision, by the key the sidecar writes them under.
REPORT_NUMBERS = {"chars": "envelope.chars", "budget": "budget.maxOutputChars", "indexed_file_count": "indexedFileCount",
                  "allocated_chars": "envelope.allocatedChars", "hard_ceiling": "budget.hardCeiling"}
FILE_NUMBERS = {"rank": "rank", "score": "score", "graph_score": "graphScore", "term_hits": "termHits",
                "allowance": "allowance", "final_chars": "finalChars", "share": "share",
                "emitted_chars": "emittedChars", "allocated_share": "allocatedShare"}


def out_of_range_numbers(report: ExploreReport) -> list[str]:
    """A warning's text for each number of `report` out of range (infra/outside.py), named by its key."""
    from citeledger.infra.outside import in_range, out_of_range

    found = [out_of_range(key, v) for name, key in REPORT_NUMBERS.items()
             if (v := getattr(report, name)) is not None and not in_range(v)]
    for i, f in enumerate(report.files):
        found += [out_of_range(f"files[{i}].{key}", v) for name, key in FILE_NUMBERS.items()
                  if (v := getattr(f, name)) is not None and not in_range(v)]
    return found


def read_diagnostics(path: str, tool: Optional[str]) -> tuple[tuple[ExploreReport, ...], tuple[InputWarning, ...]]:
    """Every readable report of the explore tool `tool` (parse_report) in a sidecar, in file
    order, and a warning per line skipped.

    Raises InputError when the file cannot be opened.
    """
    warnings: list[InputWarning] = []
    reports = []
    with reading(path, "a diagnostic sidecar"):
        for line in read_jsonl(path, warnings):
            try:
                reports.append(parse_report(line.value, Origin(path, line.number), tool))
            except ValueError as exc:
                warnings.append(InputWarning(path, line.number, f"not an explore diagnostic report ({exc}), skipped"))
                continue
            warnings += [InputWarning(path, line.number, text) for text in out_of_range_numbers(reports[-1])]
    if not reports and not warnings:
        warnings.append(InputWarning(path, 0, "no diagnostic reports (empty file)"))
    # read_jsonl's own "not JSON" warnings say "skipped"; name what was skipped.
    return tuple(reports), tuple(
        InputWarning(w.file, w.line, w.message.replace("not JSON", "diagnostic line not JSON", 1)) for w in warnings
    )


def sidecar_for(files, isfile=None) -> Optional[str]:
    """The harness's sidecar of a run: `explore-<label>.jsonl` for `run-<label>-N.jsonl`
    or `run-headless-<label>.jsonl` (labels as harness/layout.py reads them), in the
    run's directory (or above bench-readme's `run<i>/` folder); None when there is none.
    `isfile(path)` is asked whether a candidate is there (infra/fs.py's isfile by default)."""
    from citeledger.harness.layout import arm_and_run, segment
    from citeledger.infra import fs

    isfile = isfile or fs.isfile
    if not files:
        return None
    folder = os.path.dirname(files[0])
    label, _ = arm_and_run(segment(files[0])[0], folder)
    if label is None:
        return None
    for where in (folder, os.path.dirname(folder) if re.match(r"^run\d+$", os.path.basename(folder)) else None):
        if where is not None and isfile(fs.join(where, f"explore-{label}.jsonl")):
            return fs.join(where, f"explore-{label}.jsonl")
    return None


__all__ = ["ExploreReport", "FileDecision", "FLAGS", "InputError", "read_diagnostics", "sidecar_for"]
