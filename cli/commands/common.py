"""Argument handling shared by the subcommands."""

from __future__ import annotations

import argparse
import os
import sys

from citeledger.rules.loader import load_ruleset

from citeledger.core.errors import InputError, UserError
from citeledger.core.plugins import readers


def add_session_inputs(parser) -> None:
    """FILE ... or --session PATH, and --ruleset: the inputs of score and explain."""
    parser.add_argument("files", nargs="*", metavar="FILE", help="stream-json segment files of one session, in order")
    parser.add_argument("--session", metavar="PATH", help="a Claude Code interactive session log")
    add_ruleset_option(parser)


def add_format_options(parser, json_help: str) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help=json_help)
    fmt.add_argument("--csv", action="store_true", help="print the table as CSV instead of text")


def add_jobs_options(parser) -> None:
    from citeledger.core.corpus import default_jobs

    parser.add_argument("--jobs", "-j", type=_jobs, default=0, metavar="N",
                        help=f"worker processes (default: all cores, here {default_jobs()}); results do not depend on N")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar on stderr")


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of processes, 0 or more (0: all cores)")
    return value


def warn(warning) -> None:
    """One warning line on stderr: FILE:LINE: message (line 0: the whole file)."""
    print(f"citeledger: warning: {warning.file}:{warning.line}: {warning.message}", file=sys.stderr)


def session_note(session, transcript) -> None:
    """Say which log a --session directory resolved to (a note: the exit status does not change)."""
    if session and os.path.isdir(session) and transcript.files:
        print(f"citeledger: note: --session {session}: scoring {transcript.files[0]} (the newest session log)",
              file=sys.stderr)


def add_ruleset_option(parser) -> None:
    parser.add_argument(
        "--ruleset", default="default", metavar="NAME|PATH",
        help="a shipped ruleset's name or a YAML file (default: %(default)s)",
    )


def read_session(files, session, ruleset):
    """Read one session: stream-json segment FILEs in order, or an interactive log."""
    known = readers()
    options = ruleset.reader.read_options()
    if session:
        if files:
            raise InputError(files[0], "give segment files or --session, not both")
        return known["claude-interactive"]().read([session], options)
    if not files:
        raise UserError("no transcript given: FILE ... (segments of one session) or --session PATH")
    for f in files:
        if os.path.isdir(f):
            raise InputError(f, "is a directory (use --session for a Claude Code project log)")
    # Other formats (Codex rollouts, plugins) first: claude-stream claims any .jsonl.
    for name, cls in known.items():
        if name not in ("claude-stream", "claude-interactive"):
            reader = cls()
            if all(reader.claims(f) for f in files):
                return reader.read(list(files), options)
    return known["claude-stream"]().read(list(files), options)


def ruleset_from(args):
    return load_ruleset(args.ruleset)
