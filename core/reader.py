"""What a transcript reader is."""

from __future__ import annotations

import contextlib
import errno
from typing import ClassVar, Optional, Protocol, Sequence

import attrs

from citeledger.core.errors import InputError
from citeledger.core.transcript import InputWarning, Transcript, Whereabouts
from citeledger.infra.fs import NoBackend


@attrs.frozen
class KeptTools:
    """The tools whose results a reader keeps besides explore responses (`ToolResult`):
    a name in `names`, or one a pattern of `patterns` finds (`.search`)."""

    names: frozenset = frozenset()
    patterns: tuple = ()  # compiled ruleset patterns (infra/re2text.py): linear time on any name

    def __call__(self, name) -> bool:
        if not isinstance(name, str):
            return False
        return name in self.names or any(p.search(name) for p in self.patterns)

    def __or__(self, other: "KeptTools") -> "KeptTools":
        return KeptTools(self.names | other.names, tuple(dict.fromkeys(self.patterns + other.patterns)))


@attrs.frozen
class ReadOptions:
    """Reading choices that change what is kept, so a corpus is parsed per distinct value."""

    # Tool names containing this are explore calls: their results are the explore
    # responses (`Transcript.responses`). A ruleset's explore source's option (None:
    # no source reads them, none is kept); without a ruleset, the installed explore
    # source's default (core.source.installed_explore_tool).
    explore_tool: Optional[str] = attrs.field(factory=lambda: _installed_explore_tool())
    max_line_bytes: int = 64 << 20
    # Whose results to keep besides explore responses: None keeps none (the
    # reading a ruleset counting explore responses alone asks for).
    keep: Optional[KeptTools] = None


def _installed_explore_tool() -> Optional[str]:
    from citeledger.core.source import installed_explore_tool  # core.source imports this module

    return installed_explore_tool()


def is_explore(name, explore_tool: Optional[str]) -> bool:
    """Is a tool of this name the explore tool (its name contains `explore_tool`)?"""
    return explore_tool is not None and isinstance(name, str) and explore_tool in name


@contextlib.contextmanager
def reading(path: str, what: str):
    """Turn the ways a file can fail to open into one-line input errors."""
    try:
        yield
    except IsADirectoryError:
        raise InputError(path, f"is a directory, not {what}")
    except FileNotFoundError:
        raise InputError(path, "no such file")
    except PermissionError:
        raise InputError(path, "permission denied")
    except NoBackend as exc:  # a URL and no fsspec (or no backend for its scheme): say what to install
        raise InputError(path, exc.strerror)
    except OSError as exc:
        if exc.errno == errno.EINVAL and exc.strerror and exc.strerror.startswith("not a regular file"):
            raise InputError(path, exc.strerror)
        raise InputError(path, f"cannot read: {exc.strerror or exc}")


@attrs.frozen
class SessionFiles:
    """The files of one session as its reader groups them, in reading order."""

    files: tuple[str, ...]
    # Turns, when the files alone tell (one per segment); None: counted when read.
    turns: Optional[int] = None
    # What the grouping found doubtful: a part the format expects but that is
    # not on disk (the session is read without it), two files for one part.
    warnings: tuple[InputWarning, ...] = ()


class Reader(Protocol):
    """A transcript format: which files it claims, how they make sessions, how to read one.

    Only `name`, `claims` and `read` are required; `sessions`, `session_of`
    and `part_of_session` default to "every claimed file is a session of its
    own" (see `sessions_of`, `session_of`, `part_of_session` below, which
    discovery and the commands call). `read` sets `Transcript.turns`.

    `priority` places the reader in the claim order (core.plugins.readers):
    readers are asked, highest first (ties by name), whether a file is
    theirs; the first that claims it reads it. A reader that claims by
    content or layout keeps the default 0; one that claims every file of an
    extension says a negative priority, so it is asked after them. The last
    reader asked also reads a file given by name that none claims, and says
    why it cannot.
    """

    name: ClassVar[str]
    priority: ClassVar[int] = 0
    # False for a format whose sessions end with no result event (an interactive log): a session
    # of it without one has not failed, and took no known time (compare's own view says n/a).
    ends_with_result: ClassVar[bool] = True

    def claims(self, path: str) -> bool:
        """True if `path` (a file or directory) is this reader's format."""

    def read(self, paths: Sequence[str], options: ReadOptions) -> Transcript:
        """Read one session from its files (raise InputError if impossible)."""

    def sessions(self, paths: Sequence[str]) -> list[SessionFiles]:
        """Group the files this reader claimed in one directory (sorted) into sessions."""

    def session_of(self, path: str) -> SessionFiles:
        """Every file on disk of the session `path` belongs to (a file given by name)."""

    def part_of_session(self, dirpath: str) -> bool:
        """True if the directory holds parts of a session read with it (never walked alone)."""

    def whereabouts(self, paths: Sequence[str]) -> Whereabouts:
        """When, where and by which agent the session ran (its log's head; None where it does not say)."""

    def homes(self, environ) -> list[str]:
        """The folders the agent keeps its logs in, on this machine (`sweep` with no path reads them)."""


def sessions_of(reader, paths: Sequence[str]) -> list[SessionFiles]:
    """The reader's grouping of its files, or one session per file."""
    group = getattr(reader, "sessions", None)
    return list(group(paths)) if group else [SessionFiles((p,)) for p in paths]


def session_of(reader, path: str) -> SessionFiles:
    """The whole session of a file given by name, as the reader knows it (else the file alone)."""
    find = getattr(reader, "session_of", None)
    return find(path) if find else SessionFiles((path,))


def ends_with_result(reader) -> bool:
    """Whether the reader's format ends a run with a result event (Reader.ends_with_result)."""
    return bool(getattr(reader, "ends_with_result", True))


def part_of_session(reader, dirpath: str) -> bool:
    check = getattr(reader, "part_of_session", None)
    return bool(check and check(dirpath))


def whereabouts_of(reader, paths: Sequence[str]) -> Whereabouts:
    """The reader's `whereabouts` of a session's files; a reader without one (or whose log cannot be
    read there: the read itself says why) gives its agent alone, when it names one."""
    ask = getattr(reader, "whereabouts", None)
    if ask is not None:
        try:
            return ask(paths)
        except (OSError, ValueError, RecursionError):
            pass
    return Whereabouts(agent=getattr(reader, "agent", None))


def read_session(reader, paths: Sequence[str], options: Optional[ReadOptions] = None, where=None) -> Transcript:
    """`reader.read(paths, options)` with the session's whereabouts set (`where`: already asked)."""
    transcript = reader.read(list(paths), options)
    return attrs.evolve(transcript, whereabouts=where if where is not None else whereabouts_of(reader, paths))


def agent_homes(reader, environ) -> list[str]:
    """The folders the reader's agent keeps its logs in (none when the reader does not say)."""
    ask = getattr(reader, "homes", None)
    return list(ask(environ)) if ask is not None else []
