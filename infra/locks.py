"""An exclusive lock on an open file, by platform: flock on POSIX, msvcrt's byte lock on Windows.

Both are released by the operating system however the holder ends (a kill,
the OOM killer), so a lock file left behind never blocks the next run. The
standard library has one or the other; no third-party lock library is needed.
"""

from __future__ import annotations

import errno

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
try:
    import msvcrt
except ImportError:  # POSIX
    msvcrt = None

# The errors a lock held by another process raises (flock: EWOULDBLOCK/EAGAIN; msvcrt: EACCES, EDEADLOCK).
LOCKED_ERRNOS = frozenset(e for e in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, getattr(errno, "EDEADLOCK", None)) if e)
# POSIX removes an open (and locked) file; Windows refuses until it is closed.
REMOVES_OPEN_FILES = fcntl is not None


class NoLocking(OSError):
    """Neither flock nor msvcrt is available: a directory cannot be held for one run."""


def lock_nowait(fd: int) -> None:
    """Lock `fd` exclusively without waiting; OSError with an errno in HELD if another holds it."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    elif msvcrt is not None:
        import os

        os.lseek(fd, 0, os.SEEK_SET)  # msvcrt locks bytes from the current position: always byte 0
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        raise NoLocking(errno.ENOSYS, "no file locking on this platform (neither fcntl nor msvcrt)")
