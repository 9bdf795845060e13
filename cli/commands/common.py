"""Argument handling shared by the subcommands."""

from __future__ import annotations

import functools
import os
import sys

from citeledger.rules import compiled
from citeledger.rules.compiled import shipped_names

import attrs

from citeledger.core import fs, open_regular, printable
from citeledger.core.errors import EXIT_OK, EXIT_WARNINGS, InputError, UserError
from citeledger.core.plugins import readers
from citeledger.core.reader import read_session as read_with_whereabouts


# `--session PATH` names a Claude Code interactive log (or its project folder):
# the one command-line option tied to a format, so the one reader named here.
SESSION_READER = "claude-interactive"


def add_session_inputs(parser) -> None:
    """FILE ... or --session PATH, and --ruleset: the inputs of score and explain."""
    parser.add_argument("files", nargs="*", metavar="FILE", help="the files of one session, in order (-: standard input, one session)")
    parser.add_argument("--session", metavar="PATH", nargs="?", const=".",
                        help="a Claude Code interactive session log, or a project directory's newest "
                        "(no PATH: the current directory's)")
    add_ruleset_option(parser)


def add_format_options(parser, json_help: str, kind: str) -> None:
    from citeledger.cli.formats import add_format_option

    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help=json_help)
    fmt.add_argument("--csv", action="store_true", help="print the table as CSV instead of text")
    add_format_option(fmt, kind, ("json", "csv"))
    parser.add_argument("--csv-raw", action="store_true",
                        help="write CSV cells as they are: by default a cell a spreadsheet would run as a "
                        "formula (starting = + - @, tab or CR) is written with a ' before it (docs/robustness.md)")


def judged_acts(args, transcript, ruleset) -> tuple:
    """(the sufficiency block's judgement with --sufficiency, the page's next acts with --html), each
    None when not asked (here: a plain score starts without the sufficiency modules); explore
    calls are the ruleset's explore tool's."""
    if not (args.sufficiency or args.html):
        return None, None
    from citeledger.harness.sufficiency import sufficiency

    tool = ruleset.explore_tool
    judged = sufficiency(transcript, tool) if args.sufficiency else None
    return judged, (judged or sufficiency(transcript, tool)) if args.html else None


def add_html_option(parser) -> None:
    parser.add_argument("--html", metavar="PATH",
                        help="also write the report as one self-contained HTML page to PATH")


def add_jobs_options(parser) -> None:
    from citeledger.core import default_jobs

    from citeledger.cli.limits import int_text, max_jobs

    parser.add_argument("--jobs", "-j", type=int_text, default=0, metavar="N",
                        help=f"worker processes, 0 to {max_jobs()} (default: all cores, here {default_jobs()}; "
                        "never more than sessions); results do not depend on N")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar on stderr")


def warn(warning) -> None:
    """One warning line on stderr: FILE:LINE: message (line 0: the whole file)."""
    print(printable(f"citeledger: warning: {warning.file}:{warning.line}: {warning.message}"), file=sys.stderr)


def session_note(session, transcript) -> None:
    """Say which log a --session directory resolved to (a note: the exit status does not change)."""
    if session and fs.isdir(session) and transcript.files:
        print(f"citeledger: note: --session {session}: scoring {transcript.files[0]} (the newest session log)",
              file=sys.stderr)
    if session and len(transcript.files) > 1:
        print(f"citeledger: note: --session {session}: also read its subagent logs: "
              f"{', '.join(transcript.files[1:])}", file=sys.stderr)


WARNINGS_LISTED = 20  # up to this many, one line each; more are summarised by kind
NAMED_PER_KIND = 3
# Python's white space (str.isspace), spelled out for RE2, whose \\s is ASCII.
SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"
# What varies in a warning: a quoted value, a file name, a number. On RE2: a warning quotes
# transcript values, and on re `[^\\s()]+\\.jsonl` is quadratic in a long word.
VARYING = rf"'[^']*'|\"[^\"]*\"|[^{SPACE}()]+\.jsonl(?::\p{{Nd}}+)?|\p{{Nd}}[\p{{Nd}},.]*"


@functools.cache
def _varying():
    from citeledger.core import compile_linear

    return compile_linear(VARYING)


def warning_kind(message: str) -> str:
    """A warning's message with what varies (quoted values, file names, numbers) blanked: its kind."""
    out, at = [], 0
    for start, end in _varying().spans(message):
        out += (message[at:start], "N" if message[start].isdigit() else "…")
        at = end
    out.append(message[at:])
    return "".join(out)


def report_warnings(warnings, where: str = "--json and --out") -> None:
    """Warnings on stderr: each one when few; else a count per kind with the first few named."""
    warnings = list(warnings)
    if len(warnings) <= WARNINGS_LISTED:
        for w in warnings:
            warn(w)
        return
    kinds: dict[str, list] = {}
    for w in warnings:
        kinds.setdefault(warning_kind(w.message), []).append(w)
    kinds_text = f"{len(kinds)} kind" + ("s" if len(kinds) != 1 else "")
    print(f"citeledger: {len(warnings)} input warnings of {kinds_text} (every one is in {where}):", file=sys.stderr)
    for kind, found in kinds.items():
        named = ", ".join(f"{w.file}:{w.line}" for w in found[:NAMED_PER_KIND])
        more = f" …+{len(found) - NAMED_PER_KIND}" if len(found) > NAMED_PER_KIND else ""
        print(printable(f"citeledger: warning: {len(found)} × {kind} — {named}{more}"), file=sys.stderr)


def finish(result, extra_warnings=()) -> int:
    """Warnings on stderr (the reason a session is not scored among them) and the exit status:
    every exit 1 names its reason (docs/cli.md)."""
    from citeledger.core.transcript import InputWarning
    from citeledger.report.tables import REASONS, reason_of

    warnings = [*result.warnings, *extra_warnings]
    if result.status in REASONS:
        where = result.inputs[0] if result.inputs else result.name
        warnings.append(InputWarning(file=where, line=0, message=f"not scored ({result.status}): {reason_of(result.status, result.source_names)}"))
    report_warnings(warnings, "--json")  # on stderr whatever the format; --json also carries them
    return EXIT_WARNINGS if warnings else EXIT_OK


def shipped_list() -> str:
    """For --help: the shipped rulesets' names (a name not among them must be a YAML file)."""
    return "shipped: " + ", ".join(shipped_names()) + "; or a YAML file"


def one_ruleset(names, command: str) -> str:
    """The one ruleset a command uses: a second --ruleset is refused, never silently dropped."""
    if names and len(names) > 1:
        raise UserError(f"--ruleset given {len(names)} times: {command} uses one ruleset "
                        "(sweep and sensitivity score several)")
    return names[0] if names else "default"


def add_ruleset_option(parser) -> None:
    parser.add_argument(
        "--ruleset", action="append", default=None, metavar="NAME|PATH",
        help="a ruleset, once (default: default; " + shipped_list() + ")",
    )


def read_session(files, session, ruleset, whole: bool = False):
    """Read one session: stream-json segment FILEs in order, or an interactive log.

    `whole` (what the commands do): each FILE is read with the rest of its
    session found beside it (segments, an interactive log's subagents), as
    discovery groups files, and a missing segment is a warning of the result.
    Without it exactly the FILEs given are read (the differential tests).
    `-` (or a piped /dev/stdin) is standard input's session (cli/stdin.py).
    """
    from citeledger.cli import stdin

    if files and not session and stdin.wanted(files):
        return stdin.read_stdin(read_session, files, session, ruleset, whole)
    known = readers()
    options = ruleset.read_options()
    if whole and files and not session:
        for f in files:
            if fs.isdir(f):
                raise InputError(f, "is a directory (use --session for a Claude Code project log)")
            if not fs.exists(f):
                raise InputError(f, "no such file")
            _regular(f)  # a FIFO among several files is refused as a lone one is, never waited on
        from citeledger.cli.one_session import check_one_session
        from citeledger.corpus import session_for

        check_one_session(files)  # several sessions are refused, never pooled

        name, found = session_for(files)
        transcript = read_with_whereabouts(known[name](), found.files, options)
        if found.warnings:
            transcript = attrs.evolve(transcript, warnings=tuple(found.warnings) + transcript.warnings)
        return transcript
    if session:
        if files:
            raise InputError(files[0], "give segment files or --session, not both")
        try:
            return read_with_whereabouts(known[SESSION_READER](), [session], options)
        except InputError:
            _listable(session)  # no logs found because the directory cannot be listed: say that
            raise
    if not files:
        raise UserError("no transcript given: FILE ... (segments of one session) or --session PATH")
    for f in files:
        if fs.isdir(f):
            raise InputError(f, "is a directory (use --session for a Claude Code project log)")
    # FILEs are read by the first reader in the claim order (by priority) that
    # claims them all, else by the last one (the catch-all), which says why not;
    # an interactive log is given with --session.
    order = [cls for name, cls in known.items() if name != SESSION_READER]
    for cls in order:
        reader = cls()
        if all(reader.claims(f) for f in files):
            return read_with_whereabouts(reader, files, options)
    return read_with_whereabouts(order[-1](), files, options)


def _regular(path: str) -> None:
    """An InputError, as the readers word it, if `path` is not a regular file (opening never blocks)."""
    try:
        open_regular(path).close()
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None


def _listable(folder: str) -> None:
    """An InputError naming `folder` and why, if it is a directory that cannot be listed."""
    if fs.isdir(folder):
        try:
            fs.listdir(folder)
        except OSError as exc:
            raise InputError(folder, f"cannot read directory: {exc.strerror or exc}") from None


def files_added(transcript, files) -> list[str]:
    """Files read that were not named: the rest of the session of a FILE given (none for --session:
    its text block stays the reference's; session_note names its subagent logs on stderr)."""
    from citeledger.cli.stdin import named

    given = named(files)
    return [f for f in transcript.files if f not in given] if files else []


def completed_files(sessions, given) -> list[str]:
    """Files read with a file given by name (the rest of its session, subagents included).

    `sessions`: (root it was found under, files read) per session.
    """
    named = {os.path.normpath(g) for g in given}
    return [f for root, files in sessions if os.path.normpath(root) in named and os.path.isfile(root)
            for f in files if os.path.normpath(f) not in named]


def outcome_inputs(outcome) -> tuple:
    """(root, every file read) of a scored corpus outcome."""
    read = next((s.inputs for s in outcome.scores if s is not None), outcome.ref.files)
    return outcome.ref.root, tuple(read)


def ruleset_from(args):
    return compiled.load(one_ruleset(args.ruleset, args.command))
