"""Reading one session, as every face reads it: FILEs of one session or an interactive log.

The one place `score`, `explain`, `score --harness`, the arm table and the
Python API read a session (each file claimed once, several sessions refused:
engine/one_session.py), so the library never climbs into the command line.
"""

from __future__ import annotations

import attrs

from citeledger.core import fs, open_regular
from citeledger.core.errors import InputError, UserError
from citeledger.core.plugins import readers
from citeledger.core.reader import read_session as read_with_whereabouts

# `--session PATH` (`session=` in the library) names a Claude Code interactive log (or its
# project folder): the one input tied to a format, so the one reader named here.
SESSION_READER = "claude-interactive"


def read_session(files, session, ruleset, whole: bool = False):
    """Read one session: stream-json segment FILEs in order, or an interactive log.

    `whole` (what the commands do): each FILE is read with the rest of its
    session found beside it (segments, an interactive log's subagents), as
    discovery groups files, and a missing segment is a warning of the result.
    Without it exactly the FILEs given are read (the differential tests).
    `-` (or a piped /dev/stdin) is standard input's session (engine/stdin.py).
    """
    from citeledger.engine import stdin

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
        from citeledger.engine.one_session import check_one_session
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
    from citeledger.engine.stdin import named

    given = named(files)
    return [f for f in transcript.files if f not in given] if files else []
