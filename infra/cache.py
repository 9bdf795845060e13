"""Files kept between runs in the user's cache directory: work compiled once and kept.

Everything here is safe to delete. A file is named by a digest of what it was
built from (the inputs' content and citeledger's version), so a changed input
or another version never finds it; it is written whole under a temporary name
and renamed into place (a reader never sees half of one); and it is never
trusted when it fails to load (the work is then done again). A cache
directory that cannot be made or written costs speed only, never the run.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Optional

from citeledger.infra.atomic import replacing


def directory() -> str:
    """$XDG_CACHE_HOME/citeledger, else ~/.cache/citeledger (the XDG base directory rule)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "citeledger")


def file_for(kind: str, *parts: str, version: str) -> Optional[str]:
    """The cache file of `kind` built from the texts `parts` under citeledger `version`,
    its directory made; None when the directory cannot be made."""
    digest = hashlib.sha256()
    for part in (version, kind, *parts):
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big") + data)
    folder = directory()
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    return os.path.join(folder, f"{kind}-{digest.hexdigest()[:32]}")


# The largest kept file read back (the plugin index and a ruleset are a few KB, lark's tables
# about 100 KB): a larger one is not ours, and is removed rather than read.
MAX_KEPT_BYTES = 16 << 20


# What marks an installed distribution in a sys.path directory (importlib.metadata's finder).
DISTRIBUTIONS = (".dist-info", ".egg-info")


def installed_state() -> list[str]:
    """Texts that change when the installed packages may have: this interpreter, and each
    `sys.path` entry with its modification time (installing, upgrading or removing a
    distribution adds or removes a directory in it). A directory holding no distribution
    is stamped as such, not by its time: the script's folder or the current directory
    (`python -m`), where a harness writes its runs, changes at every run but installs
    nothing until a distribution appears in it. For a cache file built from what a library
    (a plugin, lark) made of citeledger's inputs."""
    import sys

    parts = [sys.version, sys.executable]
    for entry in sys.path:
        parts += [entry, _stamp(entry or ".")]
    return parts


def _stamp(entry: str) -> str:
    try:
        if not any(name.endswith(DISTRIBUTIONS) for name in os.listdir(entry)):
            return "no distributions"
    except NotADirectoryError:  # a zip archive: its time
        pass
    except OSError:
        return "-"
    try:
        return str(os.stat(entry).st_mtime_ns)
    except OSError:
        return "-"


def read(path: Optional[str]) -> Optional[bytes]:
    """The file's bytes, or None when there is none to read. Only a regular file of at most
    MAX_KEPT_BYTES is read: a FIFO (never waited on), a device, a symlink (to /dev/zero) or a
    larger file in its place is removed, and the work is done again."""
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:  # absent, or a symlink (ELOOP under O_NOFOLLOW)
        usable(path)
        return None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_KEPT_BYTES:
            _remove(path)
            return None
        data = fh.read(MAX_KEPT_BYTES + 1)
    return data if len(data) <= MAX_KEPT_BYTES else None


def usable(path: Optional[str]) -> Optional[str]:
    """`path` when it is absent or a regular file of at most MAX_KEPT_BYTES (for a library that
    opens the file itself, as lark does its tables); anything else in its place is removed
    first, and None is returned when it cannot be."""
    if path is None:
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return path  # absent: written afresh
    if stat.S_ISREG(info.st_mode) and info.st_size <= MAX_KEPT_BYTES:
        return path
    return path if _remove(path) else None


def _remove(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


def write(path: Optional[str], data: bytes, keep: Optional[int] = None) -> None:
    """Write `data` to `path` whole (infra/atomic.py). Best effort. `keep`: at most that many
    files of the same kind stay in the directory, the least recently written go."""
    if path is None:
        return
    try:
        with replacing(path) as fh:
            fh.write(data)
    except OSError:
        return
    if keep is not None:
        _prune(path, keep)


def _prune(path: str, keep: int) -> None:
    folder, name = os.path.split(path)
    kind = name.rsplit("-", 1)[0] + "-"
    try:
        found = [e for e in os.scandir(folder) if e.name.startswith(kind) and e.name[len(kind):].isalnum()]
        found.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
        for old in found[keep:]:
            os.unlink(old.path)
    except OSError:  # another process pruned it first, or the directory went: nothing to keep small
        pass
