"""When, where and by which agent a session ran: each built-in format's `Whereabouts`.

Read from the head of the session's first file (at most HEAD_LINES lines,
HEAD_BYTES bytes, a line read no further than LINE_BYTES), apart from the
reading of the events: a reader's `whereabouts(paths)` is asked by
`core.reader.read_session` after the read, and by `sweep --since/--until/--project`
before any session is scored. What the head does not say is None.

Where each agent keeps its logs on this machine (`homes`) is here too: the
folders `citeledger sweep` with no path reads.
"""

from __future__ import annotations

import glob
import os
import re
from typing import Iterator, Optional, Sequence

from citeledger.core import Whereabouts, decode_line, open_regular

HEAD_LINES = 256
HEAD_BYTES = 4 << 20
LINE_BYTES = 1 << 20


def head_events(path: str) -> Iterator[dict]:
    """The objects of the first lines of a JSON-lines file (others passed over); nothing if unreadable."""
    try:
        with open_regular(path) as fh:
            read = 0
            for _ in range(HEAD_LINES):
                raw = fh.readline(LINE_BYTES)
                read += len(raw)
                if not raw or read > HEAD_BYTES:
                    return
                if not raw.endswith(b"\n") and len(raw) == LINE_BYTES:  # a longer line: skip its rest
                    while raw and not raw.endswith(b"\n"):
                        raw = fh.readline(LINE_BYTES)
                        read += len(raw)
                    continue
                try:
                    value = decode_line(raw)
                except (ValueError, RecursionError):
                    continue
                if isinstance(value, dict):
                    yield value
    except OSError:
        return


def _text(value) -> Optional[str]:
    return value if type(value) is str and value else None


class _Found:
    """The first value seen of each fact."""

    def __init__(self):
        self.started = self.model = self.project = None

    def note(self, started=None, model=None, project=None) -> bool:
        """Keep what is new; True when all three are known."""
        self.started = self.started or _text(started)
        self.model = self.model or _text(model)
        self.project = self.project or _text(project)
        return bool(self.started and self.model and self.project)

    def made(self, agent: str, project: Optional[str] = None) -> Whereabouts:
        return Whereabouts(started=self.started, model=self.model, project=self.project or project, agent=agent)


def claude(paths: Sequence[str], filed: bool = False) -> Whereabouts:
    """Claude Code (interactive log or stream-json run): an event's `timestamp` (stream-json logs
    none), the init event's or an assistant message's `model`, the first `cwd`; without a cwd,
    the project folder an interactive log is filed under (`filed`: ~/.claude/projects/<escaped cwd>/)."""
    found = _Found()
    for event in head_events(paths[0]):
        message = event.get("message")
        model = message.get("model") if isinstance(message, dict) and event.get("type") == "assistant" else None
        if model == "<synthetic>":  # Claude Code's own note, not a model
            model = None
        if found.note(event.get("timestamp"), model or event.get("model"), event.get("cwd")):
            break
    folder = os.path.basename(os.path.dirname(os.path.abspath(paths[0]))) if filed else None
    return found.made("claude", folder or None)


def codex(paths: Sequence[str]) -> Whereabouts:
    """Codex CLI rollout: session_meta's `timestamp` and `cwd` (else the first record's timestamp),
    the first turn_context's `model`."""
    found = _Found()
    for record in head_events(paths[0]):
        payload = record.get("payload")
        payload = payload if isinstance(payload, dict) else record  # a legacy rollout's bare session line
        kind = record.get("type")
        started = payload.get("timestamp") if kind == "session_meta" or payload is record else record.get("timestamp")
        if found.note(started, payload.get("model") if kind in ("turn_context", "session_meta") else None,
                      payload.get("cwd")):
            break
    return found.made("codex")


def gemini_stream(paths: Sequence[str]) -> Whereabouts:
    """Gemini CLI stream-json: the init event's `timestamp` and `model` (no working directory logged)."""
    found = _Found()
    for event in head_events(paths[0]):
        if found.note(event.get("timestamp"), event.get("model")) or event.get("type") == "result":
            break
    return found.made("gemini")


_START = re.compile(rb'"startTime"\s*:\s*"([^"\\]{1,64})"')
_MODEL = re.compile(rb'"model"\s*:\s*"([^"\\]{1,200})"')
_PROJECT = re.compile(rb'"projectHash"\s*:\s*"([^"\\]{1,200})"')


def gemini(paths: Sequence[str]) -> Whereabouts:
    """Gemini CLI session (a saved document or a JSON-lines log): `startTime`, the first message's
    `model`, and the project: the folder it is kept under (~/.gemini/tmp/<project>/chats), else its
    `projectHash`. Found in the file's first HEAD_BYTES as written."""
    path = paths[0]
    try:
        with open_regular(path) as fh:
            head = fh.read(HEAD_BYTES)
    except OSError:
        return Whereabouts(agent="gemini")
    facts = [m.group(1).decode("utf-8", "replace") if m else None for m in
             (_START.search(head), _MODEL.search(head), _PROJECT.search(head))]
    folder = os.path.dirname(os.path.abspath(path))
    project = os.path.basename(os.path.dirname(folder)) if os.path.basename(folder) == "chats" else facts[2]
    return Whereabouts(started=facts[0], model=facts[1], project=project, agent="gemini")


# ------------------------------------------------------------ the agents' own folders


def claude_homes(environ) -> list[str]:
    """$CLAUDE_CONFIG_DIR (comma-separated) each with projects/, else ~/.claude/projects and
    ~/.config/claude/projects (those that exist)."""
    configured = [p.strip() for p in environ.get("CLAUDE_CONFIG_DIR", "").split(",") if p.strip()]
    roots = configured or [_home(environ, ".claude"), _home(environ, ".config", "claude")]
    return [p for p in (os.path.join(os.path.expanduser(r), "projects") for r in roots) if os.path.isdir(p)]


def codex_homes(environ) -> list[str]:
    """$CODEX_HOME/sessions, else ~/.codex/sessions (when it exists)."""
    root = environ.get("CODEX_HOME") or _home(environ, ".codex")
    folder = os.path.join(os.path.expanduser(root), "sessions")
    return [folder] if os.path.isdir(folder) else []


def gemini_homes(environ) -> list[str]:
    """Gemini CLI's saved sessions: ~/.gemini/tmp/*/chats (each project's folder)."""
    return sorted(glob.glob(os.path.join(glob.escape(_home(environ, ".gemini", "tmp")), "*", "chats")))


def _home(environ, *parts: str) -> str:
    return os.path.join(environ.get("HOME") or os.path.expanduser("~"), *parts)
