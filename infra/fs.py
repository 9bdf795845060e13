"""Paths on this machine and paths behind a URL, asked the same questions.

A path with a scheme (`s3://bucket/logs`, `gs://...`, `memory://x`, `file:///tmp/x`) is
listed, asked about and opened through fsspec (`fsspec.core.url_to_fs`), imported on the
first URL met: a run over local paths never imports it and makes the os calls it always
made, at their speed. A URL's files are named by appending `/name` to the URL given, so
every output names a file as the user spelt its folder (`memory://bucket/run-1.jsonl`).

An object store has no symlinks, FIFOs or appending writers: a URL is never a link, its
real path is its normalised URL, and its kind is fsspec's (a file, a directory, or
something else, refused as a local FIFO is).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from typing import IO, Iterator, Optional

# A scheme of two characters or more (as fsspec's split_protocol: `C://x` is a Windows
# drive), fsspec's chained URLs (`simplecache::s3://...`) included.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]+(?:::[A-Za-z][A-Za-z0-9+.\-]+)*://")
NEEDS_FSSPEC = "a URL is read through fsspec, which is not installed: pip install 'citeledger[fsspec]'"


class NoBackend(OSError):
    """A URL whose filesystem is not installed (fsspec itself, or its backend: s3fs, gcsfs)."""

    def __init__(self, url: str, message: str):
        super().__init__(errno.ENOPROTOOPT, message, url)


class URLFailed(OSError):
    """A URL's filesystem failed in a way of its own (a zip:: over no archive, a backend that
    cannot start): an OSError naming the URL, its message one line."""

    def __init__(self, url: str, message: str):
        super().__init__(errno.EIO, message, url)


SAID = 200  # characters of a backend's message kept (hdfs's missing JVM lists 89 lines of paths)


def _said(exc: BaseException) -> str:
    text = str(exc.strerror if isinstance(exc, OSError) and exc.strerror else exc).strip()
    first = text.splitlines()[0] if text else ""
    more = " …" if len(first) > SAID or "\n" in text else ""
    return first[:SAID] + more if first else type(exc).__name__


@contextlib.contextmanager
def _naming(url: str) -> Iterator[None]:
    """Whatever a backend raises inside the block becomes an OSError of one line naming `url`
    (its class kept for an OSError: a missing object stays FileNotFoundError)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None and "\n" not in str(exc.strerror or ""):
            raise
        try:
            named = type(exc)(exc.errno or errno.EIO, _said(exc), url)
        except Exception:  # an OSError subclass built another way
            named = URLFailed(url, _said(exc))
        raise named from None
    except (ImportError, ValueError):
        raise
    except Exception as exc:  # a backend's own error (BadZipFile, TypeError on a URL it cannot take)
        raise URLFailed(url, f"{type(exc).__name__}: {_said(exc)}") from None


def is_url(path: str) -> bool:
    """True if `path` names its filesystem by a scheme (`s3://`, `memory://`, `file://`)."""
    return "://" in path and _URL.match(path) is not None


def url_fs(url: str):
    """(fsspec filesystem, its path) of a URL; NoBackend (an OSError naming the URL) if none is installed."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise NoBackend(url, NEEDS_FSSPEC) from None
    try:
        with _naming(url):
            return url_to_fs(url)
    except (ImportError, ValueError) as exc:  # a backend not installed (s3fs), a protocol fsspec does not know
        raise NoBackend(url, "no fsspec backend for this URL: " + _said(exc)) from None


def join(folder: str, name: str) -> str:
    """`name` inside `folder`: os.path.join, or `/name` appended to a URL as given."""
    if is_url(folder):
        return (folder if folder.endswith("/") else folder + "/") + name
    return os.path.join(folder, name)


def _info(url: str) -> Optional[dict]:
    """fsspec's info of a URL, or None where nothing is."""
    fs, path = url_fs(url)
    try:
        with _naming(url):
            return fs.info(path)
    except FileNotFoundError:
        return None


def _url_kind(info: dict) -> str:
    """"directory", "file", or what else (from the mode a local backend gives)."""
    kind = info.get("type")
    if kind in ("directory", "file"):
        return kind
    mode = info.get("mode")
    return _kind(mode) if isinstance(mode, int) else "neither file nor directory"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISREG(mode):
        return "file"
    return "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"


def kind(path: str) -> str:
    """What an existing path is: "directory", "file", "a FIFO", ... (symlinks followed)."""
    if is_url(path):
        info = _info(path)
        if info is None:
            raise FileNotFoundError(errno.ENOENT, "no such file or directory", path)
        return _url_kind(info)
    return _kind(os.stat(path).st_mode)


def exists(path: str) -> bool:
    if is_url(path):
        return _info(path) is not None
    return os.path.exists(path)


def lexists(path: str) -> bool:
    """os.path.lexists (a dangling symlink exists); a URL: exists."""
    return exists(path) if is_url(path) else os.path.lexists(path)


def isfile(path: str) -> bool:
    if is_url(path):
        info = _info(path)
        return info is not None and _url_kind(info) == "file"
    return os.path.isfile(path)


def isdir(path: str) -> bool:
    if is_url(path):
        info = _info(path)
        return info is not None and _url_kind(info) == "directory"
    return os.path.isdir(path)


def islink(path: str) -> bool:
    return False if is_url(path) else os.path.islink(path)


def realpath(path: str) -> str:
    """os.path.realpath; a URL: as fsspec normalises it (one spelling of one object)."""
    if is_url(path):
        fs, inner = url_fs(path)
        with _naming(path):
            return fs.unstrip_protocol(inner)
    return os.path.realpath(path)


def mtime_ns(path: str) -> int:
    """The modification time in nanoseconds (a URL: its backend's, else 0)."""
    if not is_url(path):
        return os.stat(path).st_mtime_ns
    fs, inner = url_fs(path)
    try:
        with _naming(path):
            return int(fs.modified(inner).timestamp() * 1e9)
    except (NotImplementedError, AttributeError, TypeError, ValueError, URLFailed):
        return 0


def _listing(url: str) -> list[dict]:
    fs, path = url_fs(url)
    with _naming(url):
        found = fs.ls(path, detail=True)
    if len(found) == 1 and found[0].get("type") != "directory" and found[0]["name"].rstrip("/") == path.rstrip("/"):
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", url)  # fsspec lists a file as itself
    return found


def _name(info: dict) -> str:
    return info["name"].rstrip("/").rsplit("/", 1)[-1]


def listdir(path: str) -> list[str]:
    """os.listdir: the names in a directory, in no particular order."""
    if is_url(path):
        return [_name(info) for info in _listing(path)]
    return os.listdir(path)


def entries(dirpath: str) -> list[tuple[str, str]]:
    """(name, kind) of a directory's entries, sorted by name; kind as `kind` says, a dangling
    or looping symlink a "file" (its reader says why it cannot be read)."""
    if is_url(dirpath):
        return sorted((_name(info), _url_kind(info)) for info in _listing(dirpath))
    with os.scandir(dirpath) as it:
        return [(entry.name, _entry_kind(entry)) for entry in sorted(it, key=lambda e: e.name)]


def _entry_kind(entry) -> str:
    try:
        # A regular file or directory is known by the listing's entry type (no stat); a
        # symlink is followed, and any other type (or none given) is asked of the file.
        if not entry.is_symlink():
            if entry.is_file(follow_symlinks=False):
                return "file"
            if entry.is_dir(follow_symlinks=False):
                return "directory"
        mode = entry.stat().st_mode  # follows symlinks
    except OSError:
        return "file"
    return _kind(mode)


def identity(dirpath: str) -> tuple:
    """What says two names reach one directory: (device, inode), or a URL's real path."""
    if is_url(dirpath):
        return ("url", realpath(dirpath))
    st = os.stat(dirpath)
    return (st.st_dev, st.st_ino)


def open_url(url: str) -> tuple[IO[bytes], int]:
    """(binary file object, size) of a URL naming a file; an OSError if it names anything else."""
    info = _info(url)
    if info is None:
        raise FileNotFoundError(errno.ENOENT, "no such file", url)
    what = _url_kind(info)
    if what != "file":
        what = "a directory" if what == "directory" else what
        raise OSError(errno.EINVAL, f"not a regular file ({what}), not read")
    fs, path = url_fs(url)
    with _naming(url):
        return _NamedFile(fs.open(path, "rb"), url), int(info.get("size") or 0)


class _NamedFile:
    """A backend's file object whose errors name the URL in one line (`_naming`); closing a file
    only read never fails the run (blockcache:: over a local file raises AttributeError there)."""

    def __init__(self, fh, url: str):
        self._fh, self._url = fh, url

    def __getattr__(self, name: str):
        attr = getattr(self._fh, name)
        if not callable(attr):
            return attr

        def named(*args, **kwargs):
            with _naming(self._url):
                return attr(*args, **kwargs)

        return named

    def __iter__(self):
        while True:
            line = self.readline()
            if not line:
                return
            yield line

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
