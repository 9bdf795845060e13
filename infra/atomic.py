"""Writing a file whole: under a temporary name beside it, renamed over it when complete.

A reader of the file never sees half of one, an interrupted write leaves the
old file (or none), and two writers of one file leave one of them whole.
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import IO, Iterator

# A temporary file of `replacing` (`.NAME.XXXXXXXX.tmp`, mkstemp's 8 characters).
TEMPORARY = re.compile(r"\..+\.[A-Za-z0-9_]{8}\.tmp")


@contextlib.contextmanager
def replacing(path: str, mode: str = "wb") -> Iterator[IO]:
    """A file object whose contents replace `path` only when the block ends without error.

    The directory is made if missing. An OSError (making, writing, renaming)
    propagates; on any failure the temporary file is removed. Text modes write
    UTF-8, a lone surrogate as \\udcff, newlines as given.
    """
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    import tempfile  # only a write needs it: a run that writes nothing never imports it

    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        # mkstemp makes the file owner-only; the output gets what open() would give it.
        os.fchmod(fd, 0o666 & ~_umask())
        text = "b" not in mode
        opts = {"encoding": "utf-8", "errors": "backslashreplace", "newline": ""} if text else {}
        with os.fdopen(fd, "w" if text else "wb", **opts) as fh:
            fd = None
            yield fh
        os.replace(tmp, path)
    except BaseException:
        if fd is not None:
            os.close(fd)
        discard(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def discard(path: str) -> None:
    """Remove a file if it is there."""
    with contextlib.suppress(OSError):
        os.unlink(path)
