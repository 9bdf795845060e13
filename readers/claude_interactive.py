"""Claude Code interactive session logs under ~/.claude/projects/.

    ~/.claude/projects/<escaped-cwd>/<session-id>.jsonl
    ~/.claude/projects/<escaped-cwd>/<session-id>/subagents/agent-<id>.jsonl
    ~/.claude/projects/<escaped-cwd>/<session-id>/subagents/agent-<id>.meta.json

Subagent events are appended after the whole session, as the reference does
(transcripts.md), each with `parent_tool_use_id` set to the meta file's
`toolUseId` (or `subagent:<file name>` without one; untagged when it is falsy).
"""

from __future__ import annotations

import os
import re
from typing import Optional, Sequence


from citeledger.core import (
    InputError, InputWarning, ReadOptions, SessionFiles, Transcript, decode_line, hookimpl, is_file, open_regular,
    read_head,
)
from citeledger.core import fs
from citeledger.readers.claude_stream import open_events
from citeledger.readers.walker import EventWalker, js_truthy
from citeledger.readers import whereabouts


_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def escape_project(path: str) -> str:
    """The directory name Claude Code keeps a project's logs under: every character
    that is not an ASCII letter or digit becomes `-` (docs/decisions.md)."""
    # Per UTF-16 code unit, as JavaScript's replace counts them: an emoji is two.
    return _NOT_ALNUM.sub(lambda m: "--" if ord(m.group()) > 0xFFFF else "-", os.path.abspath(path))


# Lines an interactive log may open with that are no event (docs/transcripts-as-found.md):
# Claude Code 1.0.x `summary`, 2.x `file-history-snapshot`, `queue-operation` (which has a
# sessionId), and others of their kind; the first event after them decides.
_SESSION_KEYS = (b'"sessionId"', b'"parentUuid"')
_EVENT_TYPES = frozenset({"system", "user", "assistant", "result", "stream_event"})
_SNIFF_LINES = 32  # lines looked at: bookkeeping lines before the first event are few
_SNIFF_LINE_BYTES = 1 << 20  # a longer line is read no further when sniffing


def _decides(raw: bytes):
    """True/False when one line decides the format, None when it is passed over."""
    if not raw.strip():
        return None
    value = decode_line(raw)
    if not isinstance(value, dict):
        return False
    if "sessionId" in value or "parentUuid" in value:
        return True
    return False if value.get("type") in _EVENT_TYPES else None


def looks_interactive(path: str) -> bool:
    """An interactive log's events carry camelCase `sessionId`/`parentUuid`; stream-json's never do.

    Decided from the file, not its first line alone: the first line naming
    either key makes it interactive; lines that are no event (a `summary`, a
    `file-history-snapshot`) are passed over; the first event without them
    (a stream's `system` init or hook event) makes it a stream.
    """
    try:
        head = read_head(path, 4096)  # the first event names sessionId within its first few hundred bytes
        first = head.split(b"\n", 1)[0]
        if any(key in first for key in _SESSION_KEYS):
            return True
        lines = head.split(b"\n")
        for raw in (lines if len(head) < 4096 else lines[:-1])[:_SNIFF_LINES]:  # whole lines of the head first
            decided = _decides(raw)
            if decided is not None:
                return decided
        if len(head) < 4096:
            return False
        with open_regular(path) as fh:
            for _ in range(_SNIFF_LINES):
                raw = fh.readline(_SNIFF_LINE_BYTES)
                if not raw or len(raw) == _SNIFF_LINE_BYTES and not raw.endswith(b"\n"):
                    return False
                if not raw.strip():
                    continue
                value = decode_line(raw)
                if not isinstance(value, dict):
                    return False
                if "sessionId" in value or "parentUuid" in value:
                    return True
                if value.get("type") in _EVENT_TYPES:
                    return False
    except (OSError, ValueError, RecursionError):
        return False
    return False


def byte_order(name: str) -> bytes:
    """Sort key: a file name's bytes (the reference sorts names in byte order)."""
    return os.fsencode(name)


def session_logs(folder: str, regular_only: bool = True) -> list[str]:
    """The `*.jsonl` files of a folder, dot-prefixed names included (glob would skip them).

    `regular_only=False` keeps a FIFO or device named like a log, so that the
    reader that opens it reports it as not read instead of losing it silently.
    """
    try:
        names = fs.listdir(folder)
    except OSError:
        return []
    keep = fs.isfile if regular_only else (lambda p: not fs.isdir(p))
    return [fs.join(folder, n) for n in names if n.endswith(".jsonl") and keep(fs.join(folder, n))]


_AGENT_NAME = re.compile(r"agent-[^/]*\.jsonl\Z")
_SIDECHAIN = re.compile(rb'"isSidechain"\s*:\s*true')
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"')


def is_subagent_log(path: str) -> bool:
    """An older Claude Code's subagent log (`agent-<id>.jsonl` beside its session's log, events
    `isSidechain: true`): part of a session, never one of its own."""
    if _AGENT_NAME.match(os.path.basename(path)):
        return True
    try:
        first = read_head(path, 4096).split(b"\n", 1)[0]
    except (OSError, ValueError):
        return False
    return bool(_SIDECHAIN.search(first))


def session_id_of(path: str) -> Optional[bytes]:
    """The `sessionId` its first lines name, or None."""
    try:
        found = _SESSION_ID.search(read_head(path, 4096))
    except (OSError, ValueError):
        return None
    return found.group(1) if found else None


def sibling_subagents(session: str) -> list[str]:
    """The subagent logs beside `session` (older Claude Code: `agent-<id>.jsonl` in the project
    folder) whose sessionId is the session's, in byte order of names."""
    folder = os.path.dirname(session) or "."
    named = [p for p in session_logs(folder) if p != session and _AGENT_NAME.match(os.path.basename(p))]
    own = session_id_of(session) if named else None  # no head read unless a subagent's log is there
    if own is None:
        return []
    return sorted((p for p in named if session_id_of(p) == own), key=lambda p: byte_order(os.path.basename(p)))


def newest(logs: list[str]) -> str:
    """The newest log by modification time; equal times (restored from an archive): first name in byte order."""
    return min(logs, key=lambda p: (-fs.mtime_ns(p), byte_order(os.path.basename(p))))


def resolve_session(path: str) -> str:
    """A session .jsonl from a session file, a project directory or its log directory.

    A project directory's logs live in ~/.claude/projects/<escaped real path>/
    (Claude Code logs the real cwd: symlinks resolved) and win when they
    exist; otherwise the directory itself must hold interactive logs (a
    project's own .jsonl fixtures are not sessions).
    """
    if fs.isfile(path):
        return path
    if not fs.exists(path):
        raise InputError(path, "no such file or directory")
    escaped = escape_project(fs.realpath(path))
    # Every Claude Code config folder's projects/ ($CLAUDE_CONFIG_DIR, ~/.claude, ~/.config/claude).
    folders = whereabouts.claude_homes(os.environ) or [os.path.expanduser("~/.claude/projects")]
    logs = os.path.join(folders[0], escaped)
    candidates = [log for folder in folders for log in session_logs(os.path.join(folder, escaped))
                  if not is_subagent_log(log)]
    if not candidates:
        candidates = [p for p in session_logs(path) if looks_interactive(p) and not is_subagent_log(p)]
        if not candidates:
            raise InputError(path, f"no Claude Code session logs here or in {logs} (a subagent's log is none)")
    return newest(candidates)


_META_BYTES = 1 << 20  # a meta file is a few hundred bytes


def subagent_files(session_file: str, warnings: list) -> list[tuple[str, object]]:
    """(subagent log, the tag its events get) in the order the reference appends them.

    transcripts.md: the `.jsonl` files of <session>/subagents/ (dot-prefixed
    included) in byte order of names; the tag is the meta file's toolUseId
    when truthy in JavaScript, `subagent:<file name>` when the meta file is
    absent, unreadable or its toolUseId missing or null, and None (events
    left untagged, so on the main thread) when toolUseId is "", 0 or false.
    """
    folder = fs.join(session_file.removesuffix(".jsonl"), "subagents")
    logs = sorted(session_logs(folder, regular_only=False), key=lambda p: byte_order(os.path.basename(p)))
    found = []
    for log in logs:
        meta = log.removesuffix(".jsonl") + ".meta.json"
        value = None
        if fs.exists(meta):
            try:
                with open_regular(meta) as fh:  # a FIFO is refused, never waited on
                    raw = fh.read(_META_BYTES + 1)
                if len(raw) > _META_BYTES:
                    raise ValueError(f"larger than {_META_BYTES:,} bytes")
                # orjson stops at 1024 levels of nesting (a ValueError) where
                # json.load would exhaust the recursion limit.
                value = decode_line(raw)
            except OSError as exc:
                warnings.append(InputWarning(meta, 0, f"unreadable meta file ({exc.strerror or type(exc).__name__})"))
            except (ValueError, RecursionError) as exc:
                warnings.append(InputWarning(meta, 0, f"unreadable meta file ({type(exc).__name__})"))
            value = value.get("toolUseId") if isinstance(value, dict) else None
        if value is None:
            tag = f"subagent:{os.path.basename(log)}"
        else:
            tag = value if js_truthy(value) else None
        found.append((log, tag))
    return found


class ClaudeInteractiveReader:
    name = "claude-interactive"
    priority = -10
    agent = "claude"
    ends_with_result = False  # a session the user ends has no result event

    def whereabouts(self, paths: Sequence[str]):
        return whereabouts.claude([resolve_session(paths[0])], filed=True)

    def homes(self, environ) -> list[str]:
        return whereabouts.claude_homes(environ)

    def claims(self, path: str) -> bool:
        """A directory (a project), a log with its `<session-id>/` folder beside it, or a
        .jsonl whose first event carries `sessionId`/`parentUuid` (stream-json's never do)."""
        if path.endswith(".jsonl") and is_file(path):  # the common case first: a file is no directory
            return fs.isdir(path.removesuffix(".jsonl")) or looks_interactive(path)
        if fs.isdir(path):
            return True
        if not path.endswith(".jsonl"):
            return False
        return fs.isdir(path.removesuffix(".jsonl"))

    def sessions(self, paths: Sequence[str]) -> list[SessionFiles]:
        """Each log a session, but a subagent's log (`agent-*.jsonl`, `isSidechain`): read with its
        parent (`read`), never one of its own; one whose parent is not here is said, with the first
        session of the folder."""
        parents = [p for p in paths if not _AGENT_NAME.match(os.path.basename(p))]
        subagents = [p for p in paths if _AGENT_NAME.match(os.path.basename(p))]
        owned = {session_id_of(p) for p in parents} if subagents else set()  # heads read only then
        orphans = [p for p in subagents if session_id_of(p) not in owned]
        said = tuple(InputWarning(p, 0, "a subagent's log whose session's log is not beside it: not read as a "
                                        "session") for p in orphans)
        found = [SessionFiles((p,)) for p in parents]
        if found and said:
            found[0] = SessionFiles(found[0].files, None, said)
        elif said:  # nothing but orphans: said all the same, no session
            found = [SessionFiles((), None, said)]
        return found

    def part_of_session(self, dirpath: str) -> bool:
        """`<session-id>/subagents` beside `<session-id>.jsonl` is read into that session."""
        return os.path.basename(dirpath) == "subagents" and fs.isfile(os.path.dirname(dirpath) + ".jsonl")

    def read(self, paths: Sequence[str], options: Optional[ReadOptions] = None) -> Transcript:
        options = ReadOptions() if options is None else options  # made per call: it asks the installed sources
        if len(paths) != 1:
            raise InputError(",".join(paths), "an interactive session is one log file or directory")
        session = resolve_session(paths[0])
        walker = EventWalker(options.explore_tool, keep=options.keep)
        files = [session]
        walker.new_turn()
        open_events(session, walker, options)
        # The reference appends each subagent's events after the whole session
        # (it does not splice them in where the subagent ran): calls are
        # numbered in this order.
        beside = [(log, f"subagent:{os.path.basename(log)}") for log in sibling_subagents(session)]
        for log, tag in subagent_files(session, walker.warnings) + beside:
            files.append(log)
            try:
                open_events(log, walker, options, parent=tag)
            except InputError as exc:  # one bad subagent log does not lose the session
                walker.warnings.append(InputWarning(exc.file, exc.line, exc.message))
        return walker.transcript(
            os.path.basename(session).removesuffix(".jsonl"), tuple(files), self.name, turns=walker.prompts)


@hookimpl
def citeledger_register_readers(register):
    register(ClaudeInteractiveReader)
