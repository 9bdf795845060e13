"""`citeledger sweep`: every session under some paths, the slice table per ruleset.

The command's face on engine/sweep.py: its options become a `SweepRequest`, its
hooks choose the sessions (--agent, --since/--until), show progress and write
what the engine streams (the JSON lines, the --out files); a format renders the
`SweepResult` that comes back.
"""

from __future__ import annotations

import contextlib
import os
import sys

from citeledger.cli.commands import SUMMARY
from citeledger.engine.arms import ARM_COLUMNS, arm_pattern
from citeledger.rules.compiled import load_many
from citeledger.core.errors import EXIT_WARNINGS, UserError
from citeledger.cli.agents import add_agent_option, agent_folders, readers_of
from citeledger.cli.window import BY, add_window_options, group_of, window_of, within
from citeledger.cli.formats import check, chosen, write, write_pages
from citeledger.cli.hints import hint_sweep
from citeledger.cli.output import atomic_open, output_dir, write_stdout
from citeledger.cli.spool import Spool
from citeledger.cli.long_tables import LongTables, require_pyarrow
from citeledger.cli.progress import progress_bar
from citeledger.cli.sidecars import Diagnosed
from citeledger.engine.limits import int_text
from citeledger.engine.measures import metric_columns
from citeledger.engine.sweep import SweepHooks, SweepRequest, SweepSession, jsonl, run_sweep
from citeledger.cli.commands.common import (
    add_corpus_options, add_diagnostics_options, no_sessions, report_warnings, swept_status,
)
from citeledger.cli.sufficiency import add_sufficiency_option
from citeledger.report.tables import SESSION_COLUMNS, CsvWriter, csv_text, csv_value, wrote_line
from citeledger.report.sweep import QUANTILE_NOTE

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
        self.parquet = args.parquet
        self.arm_pattern = args.arm_pattern
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
    request = sweep_request(args)
    # The diagnostic join, under the first ruleset: its session records spooled as they come when a
    # JSON stream is written, every join kept only for the --out files made from them all.
    diagnosed = Diagnosed(args, request.rulesets[0], pooled=True, keep=bool(args.out), spool=bool(args.json or args.out))
    try:
        face = SweepFace(args, diagnosed, request.rulesets)
        result = run_sweep(request, face.hooks())
    finally:
        diagnosed.close()
    if result is None:
        return EXIT_WARNINGS  # nothing in the window: one line said why (cli/window.py)
    if fmt != "json":  # the JSON lines are streamed as the sessions come (Outputs)
        write(result, fmt)
    if fmt == "text":
        write_stdout(face.wrote)
    return swept_status(result)


def sweep_request(args) -> SweepRequest:
    """The engine's request from sweep's options (a bad --engine, ruleset or date refused before anything is read)."""
    engine = dask_engine(args.engine)
    rulesets = load_many(args.ruleset)
    args.window = window_of(args)  # a bad date or zone is a usage error before anything is read
    if not args.paths:  # no path: the agents' own log folders (--agent: one agent's)
        args.paths = agent_folders(args.agent)
    return SweepRequest(
        paths=tuple(args.paths), rulesets=tuple(rulesets), exclude=tuple(args.exclude), jobs=args.jobs,
        engine=engine, dask_timeout=args.dask_timeout, output=args.out, window_tokens=args.window_tokens,
        sufficiency=bool(args.sufficiency), by=args.by or "",
        arm_pattern=arm_pattern(args.arm_pattern) if args.arm_pattern is not None else None,
        json_lines=bool(args.json or args.out), long_rows=bool(args.out), pages=bool(args.html or args.out),
        rows_written=bool(args.json or args.out or args.html), brief=bool(args.sessions),
    )


class SweepFace:
    """The command line's side of a sweep (the engine's SweepHooks): which sessions, the progress bar,
    the writers; `wrote` is the line naming the --out files (shown after the text)."""

    def __init__(self, args, diagnosed, rulesets):
        self.args, self.diagnosed, self.rulesets = args, diagnosed, rulesets
        self.wrote = ""  # on stdout only: summary.txt stays the same wherever it is written

    def hooks(self) -> SweepHooks:
        args = self.args
        return SweepHooks(
            diagnosed=self.diagnosed, select=self.select, outputs=lambda: Outputs(args), finish=self.finish,
            progress=lambda total: progress_bar(total, "sweep", args.quiet),
            group=(lambda where: group_of(where, args.by, args.window.zone)) if args.by else None,
        )

    def select(self, refs, found_warnings):
        """--agent's sessions, those in the --since/--until window (None: none is, said why)."""
        args = self.args
        if args.agent:
            wanted = readers_of(args.agent)
            refs = [r for r in refs if r.reader in wanted]
        if args.window.active and refs:
            refs = within(refs, args.window, found_warnings)
            if not refs:
                return None  # one line said why (cli/window.py)
        if not refs:
            no_sessions(args.paths, found_warnings)
        return refs

    def finish(self, result, outputs) -> None:
        """The warnings and hints on stderr, the JSON stream, then the --out files and the page."""
        args = self.args
        report_warnings(result.warnings)  # before stdout: a reader that stops early still sees them
        hint_sweep(result.unscored, self.rulesets)
        outputs.finish(result.header)
        diag_paths = self.diagnosed.write(args.out)
        if args.out:
            names = ["sweep.jsonl", "sessions.csv", "calls.csv", "files.csv", "slices.csv", "summary.txt", "report.html"]
            names[4:4] = ["calls.parquet", "files.parquet"] if args.parquet else []
            self.wrote = wrote_line(args.out, names + [os.path.basename(p) for p in diag_paths
                                                       if os.path.normpath(os.path.dirname(p)) == os.path.normpath(args.out)])
            write(result, "csv", os.path.join(args.out, "slices.csv"))
            write(result, "text", os.path.join(args.out, "summary.txt"))
        if args.html or args.out:
            write_pages(result, args.html, args.out and os.path.join(args.out, "report.html"))
