"""`citeledger sweep`: every session under some paths, the slice table per ruleset."""

from __future__ import annotations

from typing import Optional

from citeledger.cli.commands import SUMMARY
from citeledger.cli.arms import ARM_COLUMNS, arm_pattern, labels_of

import contextlib
import os
import sys

from citeledger.rules.compiled import load_many

import attrs

from citeledger.corpus import SessionRef, Workers, discover
from citeledger.core.transcript import InputWarning, pickle_by_fields
from citeledger.core.errors import EXIT_INTERNAL, EXIT_OK, EXIT_WARNINGS, UserError
from citeledger.cli.agents import add_agent_option, agent_folders, readers_of
from citeledger.cli.window import BY, add_window_options, group_of, window_of, within
from citeledger.cli.formats import check, chosen, write, write_pages
from citeledger.cli.hints import hint_sweep
from citeledger.cli.output import atomic_open, output_dir, write_stdout
from citeledger.engine.limits import max_jobs, workers
from citeledger.cli.spool import Spool
from citeledger.cli.long_tables import LongTables, require_pyarrow
from citeledger.cli.progress import progress_bar
from citeledger.cli.sidecars import Diagnosed
from citeledger.cli.sufficiency import SlicePool, add_sufficiency_option, judged, split
from citeledger.cli.metrics import metric_columns
from citeledger.report.occupancy_pool import OccupancyPool
from citeledger.report.tables import slice_of
from citeledger.core.metric import MetricOptions
from citeledger.corpus.measured import Measured, split_measured
from citeledger.engine.limits import int_text, window_tokens
from citeledger.cli.commands.common import (
    add_corpus_options, add_diagnostics_options, completed_files, no_sessions, outcome_inputs, report_warnings,
)
from citeledger.report.html import sweep_session
from citeledger.report.html.sweep import PageSessions
from citeledger.report.results import SweepResult
from citeledger.report.jsonreport import json_bytes
from citeledger.report.long_rows import long_rows
from citeledger.report.tables import (
    SESSION_COLUMNS, SWEEP_FORMAT, CsvWriter, SliceTable, csv_text, csv_value, session_rows, tally, wrote_line,
)
from citeledger.report.sweep import QUANTILE_NOTE, turn_counts

def add_parser(sub) -> None:
    p = sub.add_parser(
        "sweep",
        help=SUMMARY["sweep"],
        description=(
            "Find every session under the given files and directories (stream-json segment groups "
            "run-x.jsonl, run-x.t2.jsonl, ..., Claude Code interactive logs, Codex rollouts, Gemini CLI "
            "sessions) and print, per ruleset, "
            "one row per slice (all, single-question, multi-turn): n, pooled efficiency, median, p25, "
            "p75, min and path-only pooled, then the per-call median and p25. Sessions without an "
            "explore response or without an answer, and unreadable ones, are counted and listed. "
            + QUANTILE_NOTE + "."
        ),
    )
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="transcript files or directories to search (none: the agents' own log folders, "
                   "each named on stderr: $CLAUDE_CONFIG_DIR or ~/.claude/projects and ~/.config/claude/projects, "
                   "$CODEX_HOME/sessions or ~/.codex/sessions, ~/.gemini/tmp/*/chats)")
    add_agent_option(p)
    add_window_options(p)
    p.add_argument("--by", choices=BY, metavar="|".join(BY),
                   help="also pool each ruleset's sessions per start day, project or model (a table after its slices)")
    p.add_argument("--sessions", action="store_true",
                   help="also list every session in the text, by start time: start, project, agent, turns, "
                   "calls, chars, efficiency or why not scored (under the first ruleset)")
    add_corpus_options(p, "score the same parsed corpus under several rulesets")
    p.add_argument("--arm-pattern", metavar="REGEX",
                   help="a pattern with named groups 'question' and 'arm' searched in each session's path "
                   "relative to its root: every session record and CSV row gets its arm and question")
    add_diagnostics_options(p, automatic=True)
    add_sufficiency_option(p, "per slice")
    p.add_argument("--engine", default="local", metavar="local|dask[=ADDRESS]",
                   help="where sessions are scored: local processes (default), or a Dask cluster "
                   "(a LocalCluster of --jobs workers, or the scheduler at ADDRESS; pip install 'citeledger[dask]')")
    p.add_argument("--dask-timeout", type=int_text, metavar="SECONDS",
                   help="with --engine dask=ADDRESS: seconds to connect to the scheduler and finish its handshake, "
                   "an integer from 1 to 600 (default 10)")
    p.add_argument("--parquet", action="store_true",
                   help="with --out: also write calls.parquet and files.parquet (needs pyarrow)")
    p.add_argument("--window-tokens", type=int_text, metavar="N",
                   help="the context window the occupancy columns' shares are of, an integer from 1,000 to "
                   "10,000,000 (default: CG_WINDOW_TOKENS if set, else 200,000)")
    p.set_defaults(run=run)


def dask_engine(engine: str):
    """--engine's value for corpus.Workers: None (local processes) or "dask[=ADDRESS]"."""
    from citeledger.corpus import checked_engine

    if checked_engine(engine) is None:
        return None
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UserError("--engine dask needs dask and distributed: pip install 'citeledger[dask]'") from None
    return engine


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
        self.arm_pattern = arm_pattern  # --arm-pattern: each row's arm and question (cli/commands/arm_pattern.py)
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


class Outputs:
    """Where rows go as they are made: stdout (--json) and the --out files.

    A context manager: the --out files are written under temporary names and
    renamed into place only when the sweep finishes without error. JSON
    records wait in a temporary file until `finish(header)`: the header comes
    first and counts turns, which are known only once every session is read.
    """

    def __init__(self, args):
        self.stdout_json = args.json
        self.out = args.out
        self._stack = contextlib.ExitStack()
        self.parquet = getattr(args, "parquet", False)
        self.arm_pattern = getattr(args, "arm_pattern", None)
        self.jsonl_file = self.sessions_csv = self.spool = self.long = None

    def __enter__(self):
        if self.stdout_json or self.out:
            self.spool = Spool()
            self._stack.callback(self.spool.close)
        if self.out:
            self._stack.enter_context(output_dir(self.out))
            self.jsonl_file = self._stack.enter_context(atomic_open(os.path.join(self.out, "sweep.jsonl"), "wb"))
            fh = self._stack.enter_context(atomic_open(os.path.join(self.out, "sessions.csv"), "w"))
            self.sessions_csv = CsvWriter(fh)
            self.columns = SESSION_COLUMNS + metric_columns() + (ARM_COLUMNS if self.arm_pattern else ())
            self.sessions_csv.writerow(self.columns)
            self.long = LongTables(self._stack, self.out, self.parquet)
        return self

    def __exit__(self, *exc):
        return self._stack.__exit__(*exc)

    def record(self, record: dict) -> None:
        if self.spool is not None:
            self.spool.write(jsonl(record))
        if self.sessions_csv is not None and record["record"] == "session":
            self.sessions_csv.writerow([csv_value(record.get(c)) for c in self.columns])

    def session(self, one: SweepSession) -> None:
        """One session's records, as its worker made them (the same bytes `record` writes)."""
        if self.spool is not None:
            self.spool.write(one.lines)
        if self.sessions_csv is not None:
            self.sessions_csv.writerows(one.csv_rows)
        if self.long is not None:
            self.long.add(one.call_rows, one.file_rows)

    def copy(self, blocks) -> None:
        """Records already made as JSON lines (the bytes `record` writes), in blocks."""
        for block in blocks:
            self.spool.write(block)

    def finish(self, header: dict) -> None:
        """The JSON stream: the header, then every record in the order recorded."""
        if self.spool is None:
            return
        first = jsonl(header)
        if self.stdout_json:
            write_stdout(first)
        if self.jsonl_file is not None:
            self.jsonl_file.write(first)
        for block in self.spool.blocks():
            if self.stdout_json:
                write_stdout(block)
            if self.jsonl_file is not None:
                self.jsonl_file.write(block)


def write_csv(path_or_stream, columns, rows) -> None:
    """CSV of `rows` to a path (atomically) or to a stream such as stdout."""
    text = csv_text(columns, rows)
    if isinstance(path_or_stream, str):
        with atomic_open(path_or_stream, "w") as fh:
            fh.write(text)
    elif path_or_stream is sys.stdout:  # through write_stdout: its errors and surrogates handled there
        write_stdout(text, raw=True)  # CSV: its CR LF rows and cells as written
    else:
        path_or_stream.write(text)


def run(args) -> int:
    fmt = chosen(args)
    check(fmt, "sweep", streamed=("json",))  # JSON lines: streamed by Outputs as the sessions come
    if fmt == "json":
        args.json = True
    if args.parquet:
        if not args.out:
            raise UserError("--parquet writes into the --out directory: give --out DIR")
        require_pyarrow()
    engine = dask_engine(args.engine)
    rulesets = load_many(args.ruleset)
    args.window = window_of(args)  # a bad date or zone is a usage error before anything is read
    if not args.paths:  # no path: the agents' own log folders (--agent: one agent's)
        args.paths = agent_folders(args.agent)
    # The diagnostic join, under the first ruleset: its session records spooled as they come when a
    # JSON stream is written, every join kept only for the --out files made from them all.
    diagnosed = Diagnosed(args, rulesets[0], pooled=True, keep=bool(args.out), spool=bool(args.json or args.out))
    pages = bool(args.html or args.out)  # the HTML page needs the session records
    rows_written = bool(args.json or args.out or args.html)  # the session rows, metric columns and all
    pattern = arm_pattern(args.arm_pattern) if getattr(args, "arm_pattern", None) is not None else None
    shape = Rows(rulesets, args.sufficiency, bool(args.out), pages, json_lines=bool(args.json or args.out),
                 brief=args.sessions, arm_pattern=pattern)
    # The workers start before discovery (they sniff its files) and score the sessions it finds.
    try:
        # Without session rows the text shows, of the metrics, only the occupancy pool.
        measured = Measured(diagnosed.join(), MetricOptions(window_tokens=window_tokens(args)),
                            columns=None if rows_written else OccupancyPool.COLUMNS)
        extra = judged(measured, args.sufficiency, rulesets[0])
        with Workers(workers(args.jobs, max_jobs()), rulesets, extra, shape,
                     engine, args.dask_timeout) as pool:
            status, result = _sweep(args, rulesets, diagnosed, pages, pool)
            if getattr(args, "keep", None) is not None:  # swept(): the result to its caller, nothing on stdout
                args.keep.append(result)
            return status
    finally:
        diagnosed.close()


def swept(paths, ruleset: Optional[str], jobs: int) -> tuple[int, Optional[SweepResult]]:
    """(exit status, result) of `citeledger sweep PATHS --ruleset RULESET -q` with nothing written on
    stdout (its warnings and notes on stderr as ever): `check --corpus` judges the sweep's own numbers,
    its slice tables and, per harness arm (SessionRef.arm), the same tables of that arm's sessions.
    The result is None when the --window left nothing (status 1)."""
    from citeledger.cli import build_parser

    argv = ["sweep", "--quiet", "--jobs", str(jobs), *(["--ruleset", ruleset] if ruleset else []), "--", *paths]
    args = build_parser(argv).parse_args(argv)
    args.keep, args.arm_tables = [], True
    status = run(args)
    return status, (args.keep[0] if args.keep else None)


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
    arms: dict = attrs.field(factory=dict)  # swept(): {arm: [SliceTable per ruleset]} (harness arms)
    # The paths given that are files (looked at once, not once a session): only their sessions
    # can have files read with them that were not named.
    given_files: tuple = ()

    def add(self, one: SweepSession, args, diagnosed, outputs) -> None:
        self.internal |= one.internal
        self.warnings.extend(one.warnings)
        for kind, n in turn_counts([one.ref.turns]).items():
            self.turns[kind] += n
        if self.given_files:
            self.added += completed_files([(one.ref.root, one.inputs)], self.given_files)
        diagnosed.add_joined(one.ref, one.scored, one.diag)
        if args.sufficiency:
            self.pooled.add_session(one.ref.turns, one.counted, [])
        self.occupancy.add(slice_of(one.ref.turns), one.ref.arm, one.occupancy)
        outputs.session(one)
        for table, row in zip(self.tables, one.tallies):
            table.add(row)
        for page in one.pages:
            self.sessions.add(page)
        self.unscored.extend(one.unscored)
        if one.brief is not None:
            self.briefs.append(one.brief)
        if getattr(args, "arm_tables", False) and one.ref.arm is not None:
            tables = self.arms.setdefault(one.ref.arm, [SliceTable(t.ruleset) for t in self.tables])
            for table, row in zip(tables, one.tallies):
                table.add(row)
        if args.by:
            key = group_of(one.ref.whereabouts, args.by, args.window.zone)
            for table, groups, row in zip(self.tables, self.groups, one.tallies):
                groups.setdefault(key, SliceTable(table.ruleset)).add(row)


def _sweep(args, rulesets, diagnosed, pages: bool, pool: Workers) -> tuple[int, Optional[SweepResult]]:
    fmt = chosen(args)
    refs, found_warnings = discover(args.paths, args.exclude, pool, output=args.out)
    if args.agent:
        wanted = readers_of(args.agent)
        refs = [r for r in refs if r.reader in wanted]
    if args.window.active and refs:
        refs = within(refs, args.window, found_warnings)
        if not refs:
            return EXIT_WARNINGS, None  # one line said why (cli/window.py)
    if not refs:
        no_sessions(args.paths, found_warnings)
    tally = _Tally([SliceTable(r.name) for r in rulesets], warnings=list(found_warnings),
                   given_files=tuple(p for p in args.paths if os.path.isfile(p)), groups=[{} for _ in rulesets])
    with Outputs(args) as outputs:
        for w in found_warnings:
            outputs.record({"record": "warning", **w.as_dict()})
        with progress_bar(len(refs), "sweep", args.quiet) as advance:
            for one in pool.score(refs, workers(args.jobs, len(refs)), advance):
                tally.add(one, args, diagnosed, outputs)
        result = _result(args, rulesets, refs, tally, diagnosed, outputs, len(found_warnings))
        diag_paths = diagnosed.write(args.out)
        wrote = ""  # on stdout only: summary.txt stays the same wherever it is written
        if args.out:
            names = ["sweep.jsonl", "sessions.csv", "calls.csv", "files.csv", "slices.csv", "summary.txt", "report.html"]
            names[4:4] = ["calls.parquet", "files.parquet"] if args.parquet else []
            wrote = wrote_line(args.out, names + [os.path.basename(p) for p in diag_paths
                                                  if os.path.normpath(os.path.dirname(p)) == os.path.normpath(args.out)])
            write(result, "csv", os.path.join(args.out, "slices.csv"))
            write(result, "text", os.path.join(args.out, "summary.txt"))
        if pages:
            write_pages(result, args.html, args.out and os.path.join(args.out, "report.html"))
    shown = getattr(args, "keep", None) is None
    if fmt != "json" and shown:  # the JSON lines are streamed as the sessions come (Outputs)
        write(result, fmt)
    if fmt == "text" and shown:
        write_stdout(wrote)
    if tally.internal:
        print("citeledger: internal error while scoring some sessions (listed as not scored)", file=sys.stderr)
        return EXIT_INTERNAL, result
    return (EXIT_WARNINGS if tally.unscored or tally.warnings else EXIT_OK), result


def grouped_rows(groups: dict, by: str) -> list[dict]:
    """One ruleset's `--by` records: each group's pooled row (its slice table's `all`), by group."""
    return [{"record": "group", "by": by, "group": key, **{k: v for k, v in table.rows()[0].items()
                                                          if k not in ("record", "slice")}}
            for key, table in sorted(groups.items())]


def by_start(brief: dict) -> tuple:
    """`--sessions`' order: by start time (as logged: ISO 8601 sorts as text), those without one last."""
    return (brief["started"] is None, brief["started"] or "", brief["session"])


def _result(args, rulesets, refs, tally: _Tally, diagnosed, outputs, found: int) -> SweepResult:
    """The slice tables and the records after the sessions' (written to the JSON stream)."""
    header = {
        "record": "sweep",
        "format": SWEEP_FORMAT,
        "paths": list(args.paths),
        "rulesets": [r.name for r in rulesets],
        "sessions": len(refs),
        **tally.turns,
        "quantiles": "type 7",
    }
    if tally.added:
        header["added_inputs"] = tally.added
    slice_rows = [t.rows() for t in tally.tables]
    if args.sufficiency:
        tally.pooled.add_to(slice_rows)
    for rows in slice_rows:
        for row in rows:
            outputs.record(row)
    by_rows = tuple(grouped_rows(groups, args.by) for groups in tally.groups) if args.by else ()
    for rows in by_rows:
        for row in rows:
            outputs.record(row)
    occupancy = tally.occupancy.records()
    for record in occupancy:
        outputs.record(record)
    tally.warnings.extend(diagnosed.warnings())
    for w in tally.warnings[found:]:
        outputs.record({"record": "warning", **w.as_dict()})
    if outputs.spool is not None:
        outputs.copy(diagnosed.spooled())
    for record in diagnosed.summary_records():
        outputs.record(record)
    report_warnings(tally.warnings)  # before stdout: a reader that stops early still sees them
    hint_sweep(tally.unscored, rulesets)
    outputs.finish(header)
    return SweepResult(
        by=args.by or "", by_rows=by_rows, session_rows=tuple(sorted(tally.briefs, key=by_start)),
        header=header, added=tuple(tally.added), slices=tuple(slice_rows), sessions=tally.sessions,
        unscored=tuple(tally.unscored), warnings=tally.warnings,
        floors={r.name: r.channel_names[0] for r in rulesets},  # first-ranked channel (the loader requires one)
        diagnostics_text=diagnosed.text("Diagnostics, pooled over the sweep"),
        sufficiency=tally.pooled, with_sufficiency=bool(args.sufficiency), occupancy=tuple(occupancy),
        arms=tuple((arm, tuple(t.rows() for t in tables)) for arm, tables in sorted(tally.arms.items())),
    )
