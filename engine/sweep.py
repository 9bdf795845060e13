"""A sweep run once for every face: discovery, the workers, the tallies, the typed result.

`run_sweep(request, hooks)` is what `citeledger sweep` and `check --corpus` each
run. The command line parses its options into a `SweepRequest` and hands
`SweepHooks`: what the engine must not do itself (choose among the sessions
found and say why none is left, show progress, write the records it streams,
pool the diagnostic join). The engine never prints and never writes a file:
each session's records go to `hooks.outputs()` as they come, in the order
the workers return them, and the slice tables come back as a `SweepResult`
(report/results.py) that a format renders.
"""

from __future__ import annotations

import contextlib
import os
from typing import Callable, Optional

import attrs

from citeledger.core.metric import MetricOptions
from citeledger.core.transcript import InputWarning, pickle_by_fields
from citeledger.corpus import SessionRef, Workers, discover
from citeledger.corpus.measured import Measured, split_measured
from citeledger.engine.arms import ARM_COLUMNS, labels_of
from citeledger.engine.limits import max_jobs, workers
from citeledger.engine.measures import metric_columns
from citeledger.engine.outcomes import completed_files, outcome_inputs
from citeledger.engine.judged import judged, split
from citeledger.engine.sufficiency import SlicePool
from citeledger.report.html import sweep_session
from citeledger.report.html.sweep import PageSessions
from citeledger.report.jsonreport import json_bytes
from citeledger.report.long_rows import long_rows
from citeledger.report.occupancy_pool import OccupancyPool
from citeledger.report.results import SweepResult
from citeledger.report.sweep import turn_counts
from citeledger.report.tables import SESSION_COLUMNS, SWEEP_FORMAT, SliceTable, csv_value, session_rows, slice_of, tally


@attrs.frozen(kw_only=True)
class SweepRequest:
    """What to sweep and what the outputs want made of each session."""

    paths: tuple[str, ...]  # files and folders to search (the command line's, or the agents' own folders)
    rulesets: tuple  # the loaded rulesets (rules.compiled.load_many), the first the diagnostic join's
    exclude: tuple[str, ...] = ()  # --exclude globs
    jobs: int = 0  # --jobs (engine/limits.py): 0 all cores
    engine: Optional[str] = None  # None: local processes; "dask[=ADDRESS]" (corpus.checked_engine)
    dask_timeout: Optional[int] = None
    output: Optional[str] = None  # the --out directory: never searched for sessions
    window_tokens: Optional[int] = None  # the occupancy columns' window (None: CG_WINDOW_TOKENS, else 200,000)
    sufficiency: bool = False  # --sufficiency: pooled per slice
    by: str = ""  # --by day|project|model: a table per group (hooks.group names each session's)
    arm_pattern: object = None  # --arm-pattern, compiled (engine/arms.arm_pattern): each row's arm and question
    json_lines: bool = False  # a JSON stream is written (--json, --out): each session's lines are made
    long_rows: bool = False  # the --out tables: sessions.csv, calls and files rows
    pages: bool = False  # the HTML page (--html, --out): what it keeps of each session
    rows_written: bool = False  # session rows are written (--json, --out, --html): every metric column
    brief: bool = False  # --sessions: each session's row
    arm_tables: bool = False  # check --corpus: the slice tables per harness arm (SessionRef.arm)


@attrs.frozen(kw_only=True)
class SweepHooks:
    """What the face does for the engine (the command line: cli/sweep_face.py)."""

    diagnosed: object  # the diagnostic join (cli/sidecars.Diagnosed): join(), add_joined(), records, text
    select: Callable  # (refs found, their warnings) -> the refs to score, or None: nothing left, said why
    outputs: Callable  # () -> a context manager giving the sink: record(dict), session(one), copy(blocks)
    finish: Callable  # (result, sink): inside the sink's context, once the records are all made
    progress: Callable = lambda total: contextlib.nullcontext(lambda n=1: None)  # total -> advance(n)
    group: Optional[Callable] = None  # --by: a session's group from its whereabouts


class NullSink:
    """A sink that keeps nothing: a sweep whose records no one writes (check --corpus)."""

    def record(self, record: dict) -> None:
        pass

    def session(self, one) -> None:
        pass

    def copy(self, blocks) -> None:
        pass

    def finish(self, header: dict) -> None:
        pass


def jsonl(record: dict) -> bytes:
    return json_bytes(record) + b"\n"
@pickle_by_fields
@attrs.frozen
class SweepSession:
    """What a sweep keeps of one session, made where it was scored (`Rows`): its records
    as the bytes and rows they are written as, and the few numbers the tables pool."""

    ref: SessionRef
    inputs: tuple[str, ...]  # every file read (citeledger.corpus: the rest of a session given by name too)
    warnings: tuple[InputWarning, ...]
    internal: bool  # scoring it met a bug (listed as not scored; exit status 3)
    scored: bool  # read and scored under the first ruleset (the diagnostic join's)
    diag: object  # the diagnostic join's result (cli.sidecars), None without a sidecar
    counted: object  # its sufficiency numbers (--sufficiency), None when not asked or not read
    lines: bytes  # its session records, one JSON line per ruleset, as --json prints them (b"" when none is written)
    tallies: tuple[dict, ...]  # per ruleset, what its slice table adds (report.tables.tally)
    unscored: tuple[dict, ...]  # per ruleset it was not scored under: session, ruleset, status, reason
    csv_rows: tuple[tuple[str, ...], ...]  # its sessions.csv rows (with --out), else ()
    call_rows: tuple[tuple, ...]  # its calls.csv rows (report/long_rows.py, with --out), else ()
    file_rows: tuple[tuple, ...]  # its files.csv rows (with --out), else ()
    pages: tuple[dict, ...]  # what the HTML page keeps of it (--html, --out), else ()
    occupancy: Optional[tuple] = None  # what the occupancy pool adds of it (OccupancyPool.pooled; None: nothing)
    brief: Optional[dict] = None  # its row of `sweep --sessions` (BRIEF_KEYS of the first ruleset's record), else None


class Rows:
    """score_corpus's `shape` for a sweep: one outcome to its SweepSession, in the worker.

    The workers turn each outcome into the records the sweep writes, so the
    whole score never crosses back: the parent writes bytes and adds numbers.
    Picklable (sent to each worker once).
    """

    def __init__(self, rulesets, sufficiency: bool, csv_rows: bool, pages: bool, json_lines: bool = True,
                 brief: bool = False, arm_pattern=None):
        self.brief = brief
        self.arm_pattern = arm_pattern  # --arm-pattern: each row's arm and question (engine/arms.py)
        self.rulesets = tuple(rulesets)
        self.sufficiency = sufficiency
        self.csv_rows = csv_rows
        self.pages = pages
        self.json_lines = json_lines  # a JSON stream is written (--json, --out): else no line is made
        self.metric_columns = metric_columns()
        self.columns = SESSION_COLUMNS + self.metric_columns + (ARM_COLUMNS if arm_pattern is not None else ())

    def __call__(self, outcome) -> SweepSession:
        outcome, counted = split(outcome, self.sufficiency)
        outcome, figures = split_measured(outcome)
        rows = session_rows(outcome, self.rulesets)
        if self.arm_pattern is not None:
            question, arm = labels_of(self.arm_pattern, outcome.ref.key) or (None, None)
            for row in rows:
                row.update(arm=arm, question=question)
        for row in rows:  # the run and occupancy columns (none when the session was not read)
            row.update(figures if figures is not None else dict.fromkeys(self.metric_columns))
        if self.sufficiency:
            SlicePool.mark(rows, counted)
        _, inputs = outcome_inputs(outcome)
        calls, files = long_rows(outcome, self.rulesets) if self.csv_rows else ((), ())
        return SweepSession(
            ref=outcome.ref,
            inputs=inputs,
            warnings=outcome.warnings,
            internal=bool(outcome.error and outcome.error.startswith("internal error")),
            scored=outcome.scores[0] is not None,
            diag=outcome.extra,
            counted=counted,
            lines=b"".join(jsonl(row) for row in rows) if self.json_lines else b"",
            tallies=tuple(tally(row) for row in rows),
            unscored=tuple({k: row[k] for k in ("session", "ruleset", "status", "reason")}
                           for row in rows if row["status"] != "scored"),
            csv_rows=tuple(tuple(csv_value(row[c]) for c in self.columns) for row in rows) if self.csv_rows else (),
            call_rows=calls,
            file_rows=files,
            pages=tuple(sweep_session(row) for row in rows) if self.pages else (),
            occupancy=OccupancyPool.pooled(figures),
            brief={k: rows[0][k] for k in BRIEF_KEYS} if self.brief and rows else None,
        )


# What `sweep --sessions` shows of a session (report/sweep.py's session rows).
BRIEF_KEYS = ("session", "started", "project", "agent", "turns", "calls", "envelope", "efficiency", "status", "reason")


@attrs.define
class _Tally:
    """What the parent adds up as the sessions come back from the workers."""

    tables: list
    pooled: SlicePool = attrs.field(factory=SlicePool)
    unscored: list = attrs.field(factory=list)
    warnings: list = attrs.field(factory=list)
    turns: dict = attrs.field(factory=lambda: turn_counts([]))  # single-question and multi-turn sessions
    added: list = attrs.field(factory=list)  # files read with a file given by name (the partial-session rule)
    internal: bool = False
    sessions: object = attrs.field(factory=PageSessions)  # what the page keeps (bounded)
    occupancy: OccupancyPool = attrs.field(factory=OccupancyPool)
    briefs: list = attrs.field(factory=list)  # sweep --sessions: each session's row
    groups: list = attrs.field(factory=list)  # sweep --by: per ruleset, {group: SliceTable}
    arms: dict = attrs.field(factory=dict)  # check --corpus: {arm: [SliceTable per ruleset]} (harness arms)
    # The paths given that are files (looked at once, not once a session): only their sessions
    # can have files read with them that were not named.
    given_files: tuple = ()

    def add(self, one: SweepSession, request: SweepRequest, hooks: SweepHooks) -> None:
        self.internal |= one.internal
        self.warnings.extend(one.warnings)
        for kind, n in turn_counts([one.ref.turns]).items():
            self.turns[kind] += n
        if self.given_files:
            self.added += completed_files([(one.ref.root, one.inputs)], self.given_files)
        hooks.diagnosed.add_joined(one.ref, one.scored, one.diag)
        if request.sufficiency:
            self.pooled.add_session(one.ref.turns, one.counted, [])
        self.occupancy.add(slice_of(one.ref.turns), one.ref.arm, one.occupancy)
        for table, row in zip(self.tables, one.tallies):
            table.add(row)
        for page in one.pages:
            self.sessions.add(page)
        self.unscored.extend(one.unscored)
        if one.brief is not None:
            self.briefs.append(one.brief)
        if request.arm_tables and one.ref.arm is not None:
            tables = self.arms.setdefault(one.ref.arm, [SliceTable(t.ruleset) for t in self.tables])
            for table, row in zip(tables, one.tallies):
                table.add(row)
        if request.by:
            key = hooks.group(one.ref.whereabouts)
            for table, groups, row in zip(self.tables, self.groups, one.tallies):
                groups.setdefault(key, SliceTable(table.ruleset)).add(row)


def run_sweep(request: SweepRequest, hooks: SweepHooks) -> Optional[SweepResult]:
    """Find the sessions under `request.paths`, score them in the workers and pool them.

    None when `hooks.select` left nothing (it said why). The workers start before
    discovery (they sniff its files); the sink is opened once the sessions are chosen.
    """
    rulesets = request.rulesets
    # Without session rows the text shows, of the metrics, only the occupancy pool.
    measured = Measured(hooks.diagnosed.join(), MetricOptions(window_tokens=_window(request)),
                        columns=None if request.rows_written else OccupancyPool.COLUMNS)
    extra = judged(measured, request.sufficiency, rulesets[0])
    shape = Rows(rulesets, request.sufficiency, request.long_rows, request.pages, json_lines=request.json_lines,
                 brief=request.brief, arm_pattern=request.arm_pattern)
    with Workers(workers(request.jobs, max_jobs()), rulesets, extra, shape,
                 request.engine, request.dask_timeout) as pool:
        refs, found_warnings = discover(list(request.paths), list(request.exclude), pool, output=request.output)
        refs = hooks.select(refs, found_warnings)
        if refs is None:
            return None
        tally = _Tally([SliceTable(r.name) for r in rulesets], warnings=list(found_warnings),
                       given_files=tuple(p for p in request.paths if os.path.isfile(p)),
                       groups=[{} for _ in rulesets])
        with hooks.outputs() as sink:
            for w in found_warnings:
                sink.record({"record": "warning", **w.as_dict()})
            with hooks.progress(len(refs)) as advance:
                for one in pool.score(refs, workers(request.jobs, len(refs)), advance):
                    tally.add(one, request, hooks)
                    sink.session(one)
            result = _result(request, refs, tally, hooks.diagnosed, sink, len(found_warnings))
            hooks.finish(result, sink)
        return result


def _window(request: SweepRequest) -> int:
    from citeledger.engine.limits import default_window_tokens

    return request.window_tokens if request.window_tokens is not None else default_window_tokens()


def grouped_rows(groups: dict, by: str) -> list[dict]:
    """One ruleset's `--by` records: each group's pooled row (its slice table's `all`), by group."""
    return [{"record": "group", "by": by, "group": key, **{k: v for k, v in table.rows()[0].items()
                                                          if k not in ("record", "slice")}}
            for key, table in sorted(groups.items())]


def by_start(brief: dict) -> tuple:
    """`--sessions`' order: by start time (as logged: ISO 8601 sorts as text), those without one last."""
    return (brief["started"] is None, brief["started"] or "", brief["session"])


def _header(request: SweepRequest, refs, tally: _Tally) -> dict:
    header = {
        "record": "sweep",
        "format": SWEEP_FORMAT,
        "paths": list(request.paths),
        "rulesets": [r.name for r in request.rulesets],
        "sessions": len(refs),
        **tally.turns,
        "quantiles": "type 7",
    }
    if tally.added:
        header["added_inputs"] = tally.added
    return header


def _result(request: SweepRequest, refs, tally: _Tally, diagnosed, sink, found: int) -> SweepResult:
    """The slice tables, and the records after the sessions' to the sink (the JSON stream's tail)."""
    slice_rows = [t.rows() for t in tally.tables]
    if request.sufficiency:
        tally.pooled.add_to(slice_rows)
    by_rows = tuple(grouped_rows(groups, request.by) for groups in tally.groups) if request.by else ()
    occupancy = tally.occupancy.records()
    for record in [row for rows in slice_rows for row in rows] + [row for rows in by_rows for row in rows]:
        sink.record(record)
    for record in occupancy:
        sink.record(record)
    tally.warnings.extend(diagnosed.warnings())
    for w in tally.warnings[found:]:
        sink.record({"record": "warning", **w.as_dict()})
    if request.json_lines:
        sink.copy(diagnosed.spooled())
    for record in diagnosed.summary_records():
        sink.record(record)
    return SweepResult(
        by=request.by, by_rows=by_rows, session_rows=tuple(sorted(tally.briefs, key=by_start)),
        header=_header(request, refs, tally), added=tuple(tally.added), slices=tuple(slice_rows),
        sessions=tally.sessions, unscored=tuple(tally.unscored), warnings=tally.warnings,
        floors={r.name: r.channel_names[0] for r in request.rulesets},  # first-ranked channel (the loader requires one)
        diagnostics_text=diagnosed.text("Diagnostics, pooled over the sweep"),
        sufficiency=tally.pooled, with_sufficiency=request.sufficiency, occupancy=tuple(occupancy),
        arms=tuple((arm, tuple(t.rows() for t in tables)) for arm, tables in sorted(tally.arms.items())),
        internal=tally.internal,
    )
