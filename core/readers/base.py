"""What a transcript reader is."""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import stat
from typing import ClassVar, Optional, Protocol, Sequence

import attrs

from citeledger.core.errors import InputError  # noqa: F401  (readers raise it)
from citeledger.core.jsstr import is_blank
from citeledger.core.transcript import InputWarning, ResultText, Transcript


@attrs.frozen
class KeptTools:
    """The tools whose results a reader keeps besides explore responses (`ToolResult`):
    a name in `names`, or one a pattern of `patterns` finds (`.search`)."""

    names: frozenset = frozenset()
    patterns: tuple = ()  # compiled ruleset patterns (core.patterns): linear time on any name

    def __call__(self, name) -> bool:
        if not isinstance(name, str):
            return False
        return name in self.names or any(p.search(name) for p in self.patterns)

    def __or__(self, other: "KeptTools") -> "KeptTools":
        return KeptTools(self.names | other.names, tuple(dict.fromkeys(self.patterns + other.patterns)))


@attrs.frozen
class ReadOptions:
    """Reading choices that change what is kept, so a corpus is parsed per distinct value."""

    explore_tool: str = "codegraph_explore"  # substring of the tool's name
    max_line_bytes: int = 64 << 20
    # Whose results to keep besides explore responses: None keeps none (the
    # reading a ruleset counting explore responses alone asks for).
    keep: Optional[KeptTools] = None


def session_name(paths: Sequence[str]) -> str:
    """A session's name: its first file's, without .jsonl."""
    return os.path.basename(paths[0]).removesuffix(".jsonl") if paths else ""


def _regular_fd(path: str) -> tuple[int, int]:
    """(descriptor, size) of `path` opened without blocking, or an OSError saying what else it is."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            mode = st.st_mode
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode) else "a device or socket"
            raise OSError(errno.EINVAL, f"not a regular file ({kind}), not read")
        return fd, st.st_size
    except BaseException:
        os.close(fd)
        raise


def open_regular_fd(path: str) -> tuple[int, int]:
    """(descriptor, size) of `path` opened for blocking reads, refusing what open_regular
    refuses; the caller closes it. For reading with os calls: no file object, and
    the one fstat that checks the file gives its size."""
    fd, size = _regular_fd(path)
    try:
        os.set_blocking(fd, True)
        return fd, size
    except BaseException:
        os.close(fd)
        raise


def open_regular(path: str):
    """Open `path` for binary reading, refusing anything but a regular file.

    A FIFO would block the read forever (and a device never end): the file
    is opened without blocking, checked, and refused with an OSError whose
    message says what it is. Never waits.
    """
    fd, _ = open_regular_fd(path)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


# The memo of the sniff going on (see `sniffing`), else None.
_sniff: contextvars.ContextVar[Optional[dict]] = contextvars.ContextVar("sniff", default=None)


@contextlib.contextmanager
def sniffing():
    """While readers are asked whether one file is theirs, each os call on it is made once.

    Discovery asks every reader about every file, and each checks the same
    things (is it a regular file, what does its head hold): inside this
    block `is_file` and `read_head` keep their answers per path, for the
    block only (one file's claim), so no answer outlives the moment it was
    true of.
    """
    token = _sniff.set({})
    try:
        yield
    finally:
        _sniff.reset(token)


def is_file(path: str) -> bool:
    """os.path.isfile, asked once per path while `sniffing`."""
    memo = _sniff.get()
    if memo is None:
        return os.path.isfile(path)
    key = ("file", path)
    found = memo.get(key)
    if found is None:
        found = memo[key] = os.path.isfile(path)
    return found


def read_head(path: str, size: int) -> bytes:
    """The first `size` bytes of a regular file, as open_regular would read them.

    For sniffing: discovery asks each reader about every file, and a file
    object costs more than the read (raw os calls: about half the time).
    While `sniffing`, a path's head is read once (at least _SNIFF_HEAD bytes)
    and each later ask is answered from it; a failure is not kept.
    """
    memo = _sniff.get()
    if memo is not None:
        kept = memo.get(("head", path))
        if kept is not None and size <= kept[1]:
            return kept[0][:size]
    asked = size if memo is None else max(size, _SNIFF_HEAD)
    fd, _ = _regular_fd(path)
    try:
        head = os.read(fd, asked)
    finally:
        os.close(fd)
    if memo is not None:
        memo[("head", path)] = (head, asked)
    return head[:size]


_SNIFF_HEAD = 4096  # what the readers here ask for: one read answers them all


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


def sessions_of(reader, paths: Sequence[str]) -> list[SessionFiles]:
    """The reader's grouping of its files, or one session per file."""
    group = getattr(reader, "sessions", None)
    return list(group(paths)) if group else [SessionFiles((p,)) for p in paths]


def session_of(reader, path: str) -> SessionFiles:
    """The whole session of a file given by name, as the reader knows it (else the file alone)."""
    find = getattr(reader, "session_of", None)
    return find(path) if find else SessionFiles((path,))


def part_of_session(reader, dirpath: str) -> bool:
    check = getattr(reader, "part_of_session", None)
    return bool(check and check(dirpath))


def final_answers(texts) -> tuple:
    """Each turn's last non-blank assistant text, in turn order, as `ResultText`s.

    For formats whose turns end with the agent's message (Codex rollouts,
    Gemini CLI sessions): `texts` holds (turn, text, origin) in reading order.
    """
    last: dict = {}
    for turn, text, origin in texts:
        if not is_blank(text):
            last[turn] = ResultText(text, origin)
    return tuple(last[t] for t in sorted(last))
