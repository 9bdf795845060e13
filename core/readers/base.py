"""What a transcript reader is."""

from __future__ import annotations

import contextlib
import os
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
        raise InputError(path, f"cannot read: {exc.strerror or exc}")


class Reader(Protocol):
    name: ClassVar[str]

    def claims(self, path: str) -> bool:
        """True if `path` (a file or directory) is this reader's format."""

    def read(self, paths: Sequence[str], options: ReadOptions) -> Transcript:
        """Read one session from its files (raise InputError if impossible)."""
