"""Claude Code headless runs: `claude -p --output-format stream-json`.

One or more segment files (`run-x.jsonl`, `run-x.t2.jsonl`, ...) form one
session, read in order; each segment is one turn.
"""

from __future__ import annotations

import os
from typing import Optional, Sequence

# segment: the harness's segment names, run-x.t2.jsonl
from citeledger.core import (
    InputError, InputWarning, ReadOptions, SessionFiles, Transcript, hookimpl, is_file, read_jsonl, reading, segment,
)
from citeledger.core import fs
from citeledger.readers.common import session_name
from citeledger.readers.walker import EVENT_KEYS, EventWalker
from citeledger.readers import whereabouts

EVENT_TYPES = frozenset({"system", "assistant", "user", "result", "summary"})


def group_segments(paths: Sequence[str]) -> list[SessionFiles]:
    """Segment files as sessions, each in segment order (numeric: t10 after t9).

    A second file for one segment (run.t1.jsonl beside run.jsonl) is a session
    of its own, with a warning; a missing middle segment is warned about and
    the session read without it.
    """
    by_base: dict[tuple[str, str], dict[int, str]] = {}
    extra: list[SessionFiles] = []
    for path in paths:
        base, turn = segment(path)
        turns = by_base.setdefault((os.path.dirname(path), base), {})
        if turn in turns:
            warning = InputWarning(
                path, 0, f"same segment (t{turn}) as {os.path.basename(turns[turn])}: scored as a session of its own")
            extra.append(SessionFiles((path,), 1, (warning,)))
        else:
            turns[turn] = path
    sessions = []
    for (_, base), turns in by_base.items():
        ordered = tuple(turns[t] for t in sorted(turns))
        missing = [f"t{t}" for t in range(1, max(turns) + 1) if t not in turns]
        warnings = (InputWarning(
            ordered[0], 0, f"segment(s) {', '.join(missing)} of {base} not found; read without them"),) if missing else ()
        sessions.append(SessionFiles(ordered, len(ordered), warnings))
    return sessions + extra


# What an unreadable file's error names (issue 29 item 5): every format a built-in reader reads.
FORMATS_READ = ("citeledger reads Claude Code stream-json and interactive logs, Codex CLI rollouts, "
                "Gemini CLI sessions, Gemini CLI stream-json logs and opencode session exports")


def open_events(path: str, walker: EventWalker, options: ReadOptions, parent=None, alone=True) -> int:
    """Feed one file's events to the walker; returns how many were events.

    `parent`, if not None, becomes every event's parent_tool_use_id.

    Raises InputError when the file cannot be read, holds JSON but no event,
    or, read `alone`, holds nothing readable at all. A segment of a longer
    session that a killed run left as one partial line only warns: the other
    segments still make the session.
    """
    found = lines = 0
    known = len(walker.warnings)
    with reading(path, "a transcript file (use --session for a project log)"):
        feed = walker.feed
        for line in read_jsonl(path, walker.warnings, options.max_line_bytes, EVENT_KEYS):
            lines += 1
            kind = feed(path, line, parent)  # the event's type, read once
            if isinstance(kind, str) and kind in EVENT_TYPES:  # a list or object type is no event
                found += 1
    skipped = len(walker.warnings) > known
    if found == 0 and (lines or skipped and alone):
        raise InputError(path, "not a Claude Code transcript (no assistant/user/result events); " + FORMATS_READ)
    if found == 0:
        walker.warnings.append(InputWarning(path, 0, "no events (nothing readable)" if skipped else "empty file"))
    return found


class ClaudeStreamReader:
    name = "claude-stream"
    priority = -20
    agent = "claude"

    def whereabouts(self, paths: Sequence[str]):
        return whereabouts.claude(paths)

    def claims(self, path: str) -> bool:
        # A dangling symlink is claimed too, so a sweep reports it unreadable
        # instead of skipping it unseen (a FIFO is not: opening it would block).
        return path.endswith(".jsonl") and (is_file(path) or fs.islink(path) and not fs.exists(path))

    def sessions(self, paths: Sequence[str]) -> list[SessionFiles]:
        return group_segments(paths)

    def session_of(self, path: str) -> SessionFiles:
        """`run-x.jsonl` (or any segment of it) with every `run-x[.tN].jsonl` beside it."""
        folder = os.path.dirname(path)
        base, _ = segment(path)
        try:
            names = fs.listdir(folder or ".")
        except OSError:
            return SessionFiles((path,), 1)
        siblings = [
            fs.join(folder, n) for n in sorted(names)
            if n.endswith(".jsonl") and segment(n)[0] == base and fs.join(folder, n) != path
        ]
        for session in self.sessions([path] + [p for p in siblings if self.claims(p)]):
            if path in session.files:
                return session
        return SessionFiles((path,), 1)

    def read(self, paths: Sequence[str], options: Optional[ReadOptions] = None) -> Transcript:
        options = ReadOptions() if options is None else options  # made per call: it asks the installed sources
        walker = EventWalker(options.explore_tool, headless=True, keep=options.keep)
        for path in paths:
            walker.new_turn()
            open_events(path, walker, options, alone=len(paths) == 1)
        return walker.transcript(session_name(paths), tuple(paths), self.name, turns=len(paths))


@hookimpl
def citeledger_register_readers(register):
    register(ClaudeStreamReader)
