"""What a transcript reader is."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import ClassVar, Protocol, Sequence

import attrs

from citeledger.core.errors import InputError  # noqa: F401  (readers raise it)
from citeledger.core.transcript import Transcript


@attrs.frozen
class ReadOptions:
    """Reading choices that change what is kept, so a corpus is parsed per distinct value."""

    explore_tool: str = "codegraph_explore"  # substring of the tool's name
    max_line_bytes: int = 64 << 20


def session_name(paths: Sequence[str]) -> str:
    """A session's name: its first file's, without .jsonl."""
    return os.path.basename(paths[0]).removesuffix(".jsonl") if paths else ""


def open_regular(path: str):
    """Open `path` for binary reading, refusing anything but a regular file.

    A FIFO would block the read forever (and a device never end): the file
    is opened without blocking, checked, and refused with an OSError whose
    message says what it is. Never waits.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode) else "a device or socket"
            raise OSError(errno.EINVAL, f"not a regular file ({kind}), not read")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


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


class Reader(Protocol):
    name: ClassVar[str]

    def claims(self, path: str) -> bool:
        """True if `path` (a file or directory) is this reader's format."""

    def read(self, paths: Sequence[str], options: ReadOptions) -> Transcript:
        """Read one session from its files (raise InputError if impossible)."""
