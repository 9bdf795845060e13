"""Sweep tables: one row per session, the slice table, and plain-text layout.

Column names here are the stable ones documented in docs/sweep.md; the JSON
and CSV writers use them as they are.
"""

from __future__ import annotations

import contextvars
import csv
import io
import json
from typing import Optional, Sequence

from citeledger.core import in_range, inert_cell, percent
from citeledger.report.columns import layout  # noqa: F401 (the tables' layout, where it always was)
from citeledger.report.stats import median, pooled, quantile
from citeledger.report.text import TOOL_NAME

SWEEP_FORMAT = "citeledger-sweep/1"

SESSION_COLUMNS = (
    "session", "group", "root", "reader", "started", "model", "project", "agent", "turns", "ruleset", "status", "reason",
    "envelope", "used", "used_path_only", "efficiency", "path_only", "calls",
    "call_efficiencies", "call_queries", "files_returned", "files_used", "warnings", "inputs",
)
SLICE_COLUMNS = (
    "ruleset", "slice", "n", "pooled", "median", "p25", "p75", "min", "path_only_pooled",
    "calls", "call_median", "call_p25", "envelope", "used", "not_scored",
)
SLICES = ("all", "single-question", "multi-turn")


def session_rows(outcome, rulesets) -> list[dict]:
    """One row per ruleset for one outcome; `files` holds (path, pooled chars, channel)."""
    ref = outcome.ref
    rows = []
    for ruleset, s in zip(rulesets, outcome.scores):
        row = {
            "record": "session",
            "session": ref.key,
            "group": ref.group,
            "root": ref.root,
            "reader": ref.reader,
            **_whereabouts(ref),
            "turns": ref.turns,
            "ruleset": ruleset.name,
            "status": "unreadable" if s is None else s.status,
            "reason": outcome.error,
            "envelope": 0, "used": 0, "used_path_only": 0,
            "efficiency": None, "path_only": None,
            "calls": 0, "call_efficiencies": [], "call_queries": [],
            "files_returned": 0, "files_used": 0,
            "warnings": len(outcome.warnings),
            "inputs": list(s.inputs) if s is not None else list(ref.files),
            "files": [],
        }
        if s is not None:
            row.update(
                envelope=s.envelope,
                used=s.used,
                used_path_only=s.used_by_rank[0] if s.used_by_rank else 0,
                # Only a scored session has an efficiency: a no-explore or no-answer
                # session's 0.0 would drag every mean taken over the column.
                efficiency=s.efficiency if s.status == "scored" else None,
                path_only=s.lower_bound if s.status == "scored" else None,
                calls=len(s.calls),
                # As `efficiency`: a killed or empty run's calls have none to average (not 0.0 each).
                call_efficiencies=[c.efficiency for c in s.calls] if s.status == "scored" else [],
                # Each call's explore query, in call order (null: its tool_use had none).
                call_queries=list(s.queries or (None,) * len(s.calls)),
                files_returned=len(s.files),
                files_used=s.files_used,
                files=[[f.path, f.chars, f.verdict.channel] for f in s.files],
            )
            if s.status in REASONS:
                row["reason"] = reason_of(s.status, s.source_names)
        rows.append(row)
    return rows


# Why a session is not scored, by status: the sweep's `reason` and score's warning.
REASONS = {
    "no-explore": f"no {TOOL_NAME} response with a source section",
    "no-answer": "no final answer text",
}


def reason_of(status: str, sources=()) -> str:
    """Why a session is not scored, naming the ruleset's own sources (`default`'s: the explore tool)."""
    sources = tuple(sources)
    if status == "no-explore" and sources and sources != (TOOL_NAME,):
        named = sources[0] if len(sources) == 1 else ", ".join(sources[:-1]) + " or " + sources[-1]
        return f"no {named} response with a source section"
    return REASONS[status]


def _whereabouts(ref) -> dict:
    """started, model, project, agent of a session (core.Whereabouts; None where its log does not say)."""
    where = getattr(ref, "whereabouts", None)
    return where.as_dict() if where is not None else dict.fromkeys(("started", "model", "project", "agent"))


def slice_of(turns: int) -> str:
    return "single-question" if turns <= 1 else "multi-turn"


class _Acc:
    __slots__ = ("effs", "used", "used_path", "envelope", "call_effs")

    def __init__(self):
        self.effs: list[float] = []
        self.used: list[int] = []
        self.used_path: list[int] = []
        self.envelope: list[int] = []
        self.call_effs: list[float] = []


# What SliceTable.add reads of a session row: all a slice table needs of a session.
TALLY_KEYS = ("turns", "status", "efficiency", "used", "used_path_only", "envelope", "call_efficiencies")


def tally(row: dict) -> dict:
    """The part of a session row its slice table adds (TALLY_KEYS)."""
    return {k: row[k] for k in TALLY_KEYS}


class SliceTable:
    """Accumulates scored session rows of one ruleset; only numbers are kept, not sessions."""

    def __init__(self, ruleset: str):
        self.ruleset = ruleset
        self.acc = {name: _Acc() for name in SLICES}
        self.not_scored = {name: 0 for name in SLICES}

    def add(self, row: dict) -> None:
        targets = ("all", slice_of(row["turns"]))
        if row["status"] != "scored":
            for t in targets:
                self.not_scored[t] += 1
            return
        for t in targets:
            a = self.acc[t]
            a.effs.append(row["efficiency"])
            a.used.append(row["used"])
            a.used_path.append(row["used_path_only"])
            a.envelope.append(row["envelope"])
            a.call_effs.extend(row["call_efficiencies"])

    def rows(self) -> list[dict]:
        out = []
        for name in SLICES:
            a = self.acc[name]
            out.append({
                "record": "slice",
                "ruleset": self.ruleset,
                "slice": name,
                "n": len(a.effs),
                "pooled": pooled(a.used, a.envelope),
                "median": median(a.effs),
                "p25": quantile(a.effs, 0.25),
                "p75": quantile(a.effs, 0.75),
                "min": min(a.effs) if a.effs else None,
                "path_only_pooled": pooled(a.used_path, a.envelope),
                "calls": len(a.call_effs),
                "call_median": median(a.call_effs),
                "call_p25": quantile(a.call_effs, 0.25),
                "envelope": sum(a.envelope),
                "used": sum(a.used),
                "not_scored": self.not_scored[name],
            })
        return out


LISTED = 10  # items a text list shows; --json and --out hold them all


def more(hidden: int, indent: str = "  ") -> str:
    """The line closing a capped text list ("" when nothing was cut)."""
    return f"{indent}…+{hidden} more (all in --json / --out)\n" if hidden > 0 else ""


def capped(items: Sequence[str], limit: int = LISTED) -> str:
    """A comma-separated list of at most `limit` items, then how many more."""
    shown = ", ".join(items[:limit])
    return shown + (f" …+{len(items) - limit} more (all in --json / --out)" if len(items) > limit else "")


def wrote_line(folder: str, names: Sequence[str]) -> str:
    """What an --out run wrote into its folder, by name (the text's last line)."""
    return f"\nwrote into {folder}: {', '.join(names)}\n"


def pct(value: Optional[float]) -> str:
    return "—" if value is None else percent(value)


def render_slices(rows: list[dict], floor: str, first: str = "slice") -> str:
    """The slice table; `floor` names the ruleset's first-ranked channel (its share alone is the
    lower bound: the `path_only_pooled` field, named after the default's for scripts' sake)."""
    headers = (first, "n", "pooled", "median", "p25", "p75", "min", f"{floor}-only", "calls", "call median", "call p25")
    body = [
        (r["slice"], r["n"], pct(r["pooled"]), pct(r["median"]), pct(r["p25"]), pct(r["p75"]), pct(r["min"]),
         pct(r["path_only_pooled"]), r["calls"], pct(r["call_median"]), pct(r["call_p25"]))
        for r in rows
    ]
    return layout(headers, body, (False,) + (True,) * 10)


def csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):  # a JSON array: pandas reads it with json.loads, names with spaces survive
        return json.dumps(list(value), ensure_ascii=False)
    if isinstance(value, float):
        return repr(value) if in_range(value) else ""  # out of range (infra/outside.py): null, as in JSON
    if type(value) is int and not in_range(value):
        return ""
    return str(value)


# --csv-raw: cells as the transcript gave them. Set once by the command line (cli._run) for
# the run; the cells are neutralised where they are written, in the main process.
RAW_CELLS: contextvars.ContextVar[bool] = contextvars.ContextVar("raw_cells", default=False)


class CsvWriter:
    """csv.writer whose text cells a spreadsheet does not run as formulas (infra/printable.inert_cell),
    unless RAW_CELLS: file names, groups and explore headers come from the transcript (CWE-1236)."""

    def __init__(self, fh):
        self._writer = csv.writer(fh)
        self._raw = RAW_CELLS.get()

    def writerow(self, row) -> None:
        self._writer.writerow(row if self._raw else [inert_cell(c) if isinstance(c, str) else c for c in row])

    def writerows(self, rows) -> None:
        for row in rows:
            self.writerow(row)


def csv_text(columns, rows) -> str:
    """The CSV table of dicts `rows` under `columns`, through CsvWriter."""
    buffer = io.StringIO(newline="")
    w = CsvWriter(buffer)
    w.writerow(columns)
    for r in rows:
        w.writerow([csv_value(r[c]) for c in columns])
    return buffer.getvalue()
