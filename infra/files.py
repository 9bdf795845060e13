"""Opening files for reading without ever blocking on what is not a regular file,
and asking about one file once while readers sniff it."""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import stat
from typing import Optional

from citeledger.infra import fs


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
    if fs.is_url(path):
        return fs.open_url(path)[0]
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
    """os.path.isfile (infra/fs.py's, so a URL too), asked once per path while `sniffing`."""
    memo = _sniff.get()
    if memo is None:
        return fs.isfile(path)
    key = ("file", path)
    found = memo.get(key)
    if found is None:
        found = memo[key] = fs.isfile(path)
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
    if fs.is_url(path):
        fh, _ = fs.open_url(path)
        with fh:
            head = fh.read(asked)
    else:
        fd, _ = _regular_fd(path)
        try:
            head = os.read(fd, asked)
        finally:
            os.close(fd)
    if memo is not None:
        memo[("head", path)] = (head, asked)
    return head[:size]


_SNIFF_HEAD = 4096  # what the readers here ask for: one read answers them all
