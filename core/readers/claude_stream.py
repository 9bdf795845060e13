"""Claude Code headless runs: `claude -p --output-format stream-json`.

One or more segment files (`run-x.jsonl`, `run-x.t2.jsonl`, ...) form one
session, read in order; each segment is one turn.
"""

from __future__ import annotations

import os
from typing import Sequence

from citeledger.core.hookspecs import hookimpl
from citeledger.core.readers.jsonl import read_jsonl
from citeledger.core.transcript import InputWarning, Transcript
from citeledger.core.readers.base import InputError, ReadOptions, reading, session_name
from citeledger.core.readers.walker import EventWalker

EVENT_TYPES = frozenset({"system", "assistant", "user", "result", "summary"})


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
        for line in read_jsonl(path, walker.warnings, options.max_line_bytes):
            lines += 1
            kind = line.value.get("type") if isinstance(line.value, dict) else None
            if isinstance(kind, str) and kind in EVENT_TYPES:  # a list or object type is no event
                found += 1
            walker.feed(path, line, parent)
    skipped = len(walker.warnings) > known
    if found == 0 and (lines or skipped and alone):
        raise InputError(path, "not a Claude Code transcript (no assistant/user/result events)")
    if found == 0:
        walker.warnings.append(InputWarning(path, 0, "no events (nothing readable)" if skipped else "empty file"))
    return found


class ClaudeStreamReader:
    name = "claude-stream"

    def claims(self, path: str) -> bool:
        # A dangling symlink is claimed too, so a sweep reports it unreadable
        # instead of skipping it unseen (a FIFO is not: opening it would block).
        dangling = os.path.islink(path) and not os.path.exists(path)
        return path.endswith(".jsonl") and (os.path.isfile(path) or dangling)

    def read(self, paths: Sequence[str], options: ReadOptions = ReadOptions()) -> Transcript:
        walker = EventWalker(options.explore_tool, headless=True)
        for path in paths:
            walker.new_turn()
            open_events(path, walker, options, alone=len(paths) == 1)
        return walker.transcript(session_name(paths), tuple(paths), self.name)


@hookimpl
def citeledger_register_readers(register):
    register(ClaudeStreamReader)
