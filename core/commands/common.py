"""Argument handling shared by the subcommands."""

from __future__ import annotations

import os

from citeledger.rules.loader import load_ruleset

from ..errors import InputError
from ..plugins import readers


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
        raise InputError("<arguments>", "no transcript given (FILE ... or --session PATH)")
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
