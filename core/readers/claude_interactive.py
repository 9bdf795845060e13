"""Claude Code interactive session logs under ~/.claude/projects/.

    ~/.claude/projects/<escaped-cwd>/<session-id>.jsonl
    ~/.claude/projects/<escaped-cwd>/<session-id>/subagents/agent-<id>.jsonl
    ~/.claude/projects/<escaped-cwd>/<session-id>/subagents/agent-<id>.meta.json

Subagent events are read into the session just before the main-thread event
that carries the spawning tool's result, each with `parent_tool_use_id` set to
the meta file's `toolUseId` (or `subagent:<file name>` without a meta file).
"""

from __future__ import annotations

import glob
import os
from typing import Sequence

import orjson

from citeledger.core.hookspecs import hookimpl
from citeledger.core.transcript import InputWarning, Transcript
from citeledger.core.readers.base import InputError, ReadOptions, open_regular
from citeledger.core.readers.claude_stream import open_events
from citeledger.core.readers.walker import EventWalker


def escape_project(path: str) -> str:
    """The directory name Claude Code keeps a project's logs under."""
    return os.path.abspath(path).replace("/", "-")


def looks_interactive(path: str) -> bool:
    """An interactive log's events carry camelCase `sessionId`/`parentUuid`; stream-json's don't."""
    try:
        with open_regular(path) as fh:
            head = fh.read(4096)  # the first event names sessionId within its first few hundred bytes
    except OSError:
        return False
    first = head.split(b"\n", 1)[0]
    return b'"sessionId"' in first or b'"parentUuid"' in first


def resolve_session(path: str) -> str:
    """A session .jsonl from a session file, a project directory or its log directory.

    A project directory's logs live in ~/.claude/projects/<escaped path>/ and
    win when they exist; otherwise the directory itself must hold interactive
    logs (a project's own .jsonl fixtures are not sessions).
    """
    if os.path.isfile(path):
        return path
    if not os.path.exists(path):
        raise InputError(path, "no such file or directory")
    logs = os.path.join(os.path.expanduser("~/.claude/projects"), escape_project(path))
    candidates = glob.glob(os.path.join(glob.escape(logs), "*.jsonl"))
    if not candidates:
        here = glob.glob(os.path.join(glob.escape(path), "*.jsonl"))
        candidates = [p for p in here if looks_interactive(p)]
        if not candidates:
            raise InputError(path, f"no Claude Code session logs here or in {logs}")
    # The newest session is the project's current one; name breaks mtime ties.
    return max(candidates, key=lambda p: (os.path.getmtime(p), p))


_META_BYTES = 1 << 20  # a meta file is a few hundred bytes


def subagent_files(session_file: str, warnings: list) -> dict[str, str]:
    """parent tool_use id -> subagent log, from the meta files."""
    folder = os.path.join(session_file.removesuffix(".jsonl"), "subagents")
    found: dict[str, str] = {}
    for log in sorted(glob.glob(os.path.join(glob.escape(folder), "*.jsonl"))):
        meta = log.removesuffix(".jsonl") + ".meta.json"
        parent = f"subagent:{os.path.basename(log)}"
        if os.path.exists(meta):
            try:
                with open_regular(meta) as fh:  # a FIFO is refused, never waited on
                    raw = fh.read(_META_BYTES + 1)
                if len(raw) > _META_BYTES:
                    raise ValueError(f"larger than {_META_BYTES:,} bytes")
                # orjson stops at 1024 levels of nesting (a ValueError) where
                # json.load would exhaust the recursion limit.
                value = orjson.loads(raw).get("toolUseId")
                if isinstance(value, str) and value:
                    parent = value
            except OSError as exc:
                warnings.append(InputWarning(meta, 0, f"unreadable meta file ({exc.strerror or type(exc).__name__})"))
            except (ValueError, AttributeError, RecursionError) as exc:
                warnings.append(InputWarning(meta, 0, f"unreadable meta file ({type(exc).__name__})"))
        if parent in found:  # two logs claim one spawning tool: keep both, the second unattached
            warnings.append(InputWarning(meta, 0, f"toolUseId {parent} already belongs to {os.path.basename(found[parent])}"))
            parent = f"subagent:{os.path.basename(log)}"
        found[parent] = log
    return found


class ClaudeInteractiveReader:
    name = "claude-interactive"

    def claims(self, path: str) -> bool:
        """A directory (a project), a log with its `<session-id>/` folder beside it, or a
        .jsonl whose first event carries `sessionId`/`parentUuid` (stream-json's never do)."""
        if os.path.isdir(path):
            return True
        if not path.endswith(".jsonl"):
            return False
        return os.path.isdir(path.removesuffix(".jsonl")) or (os.path.isfile(path) and looks_interactive(path))

    def part_of_session(self, dirpath: str) -> bool:
        """`<session-id>/subagents` beside `<session-id>.jsonl` is read into that session."""
        return os.path.basename(dirpath) == "subagents" and os.path.isfile(os.path.dirname(dirpath) + ".jsonl")

    def read(self, paths: Sequence[str], options: ReadOptions = ReadOptions()) -> Transcript:
        if len(paths) != 1:
            raise InputError(",".join(paths), "an interactive session is one log file or directory")
        session = resolve_session(paths[0])
        walker = EventWalker(options.explore_tool)
        subagents = subagent_files(session, walker.warnings)
        files = [session]
        pending = dict(subagents)

        def splice_subagents(line):
            # A subagent ran before the main-thread result of the tool that spawned it.
            message = line.value.get("message") if isinstance(line.value, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    parent = block.get("tool_use_id")
                    log = pending.pop(parent, None) if isinstance(parent, str) else None
                    if log:
                        read_subagent(log, parent)

        def read_subagent(log, parent):
            files.append(log)
            try:
                open_events(log, walker, options, parent=parent)
            except InputError as exc:  # one bad subagent log does not lose the session
                walker.warnings.append(InputWarning(exc.file, exc.line, exc.message))

        walker.new_turn()
        open_events(session, walker, options, before=splice_subagents)
        for parent, log in pending.items():  # never joined: read at the end
            read_subagent(log, parent)
        return walker.transcript(
            os.path.basename(session).removesuffix(".jsonl"), tuple(files), self.name, turns=walker.prompts)


@hookimpl
def citeledger_register_readers(register):
    register(ClaudeInteractiveReader)
