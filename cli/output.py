"""Writing what a command produced: stdout, or files written atomically.

Every file goes to a temporary name in its own directory and is renamed over
the target only when complete, so an interrupted run never leaves a
half-written file, and two runs writing one file leave one of them whole.

An `--out` directory is all-or-nothing per run: held by a lock for the run
(a second run into it refuses at once), every file of the run is written
into a fresh staging directory inside it, and only when the run ends without
error is the set renamed into place, with signals held; a failure on the way
puts the previous files back. A run that fails leaves nothing of itself.
The lock is an flock, so a run killed outright (SIGKILL, the OOM killer)
holds it no longer: the next run takes the directory over, says so, and
removes what the dead run left.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import select
import shutil
import signal
import stat
import sys
from typing import IO, Iterator, Union

from citeledger.core import (
    HELD_SIGNALS, LOCKED_ERRNOS, REMOVES_OPEN_FILES, TEMPORARY, UserError, discard, lock_nowait, printable,
    replacing,
)

LOCK = ".citeledger.lock"
STAGING = ".citeledger.new."  # a run's files until they are all written
BACKUP = ".citeledger.old."  # the previous files while the new set is renamed in

Data = Union[bytes, str]


def _failed(path: str, exc: OSError) -> UserError:
    return UserError(f"{path}: cannot write: {exc.strerror or exc}")


class _Staged:
    """One --out directory being written: where its files go until the run ends."""

    def __init__(self, out: str, stage: str):
        self.out, self.stage = out, stage
        self.written: dict[str, None] = {}  # paths relative to `out`, in writing order


_STAGED: dict[str, _Staged] = {}  # absolute --out path -> its staging, for the run's duration


def _staged_path(path: str) -> str:
    """Where a file meant for `path` is written now: in its --out directory's staging, if any."""
    full = os.path.abspath(path)
    for out, staged in _STAGED.items():
        if full.startswith(out + os.sep):
            rel = os.path.relpath(full, out)
            staged.written[rel] = None
            target = os.path.join(staged.stage, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            return target
    return path


@contextlib.contextmanager
def atomic_open(path: str, mode: str = "wb") -> Iterator[IO]:
    """A file object whose contents replace `path` only when the block ends without error
    (inside an --out directory: when the whole run's files are swapped in)."""
    try:
        real = _staged_path(path)
    except OSError as exc:
        raise _failed(path, exc) from None
    try:
        # `--html new/x.html` makes new/, as --plot and --out do
        with replacing(real, mode) as fh:
            yield fh
    except OSError as exc:
        raise _failed(path, exc) from None


def write_file(path: str, data: Data) -> str:
    """Write `data` to `path` atomically; returns the path."""
    with atomic_open(path, "wb") as fh:
        fh.write(data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data)
    return path


def append_text(path: str, text: str) -> str:
    """Add `text` (UTF-8) at the end of `path`, made if missing: a file several writers add to in
    turn, as GitHub's $GITHUB_STEP_SUMMARY (each step's summary is what its writers appended)."""
    try:
        with open(path, "ab") as fh:
            fh.write(text.encode("utf-8", "backslashreplace"))
    except OSError as exc:
        raise _failed(path, exc) from None
    return path


def write_images(base: str, images: dict[str, bytes]) -> list[str]:
    """Write a plot's images as `base`.png, `base`.svg, ... (folders made); returns the paths."""
    folder = os.path.dirname(base)
    if folder:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as exc:
            raise _failed(folder, exc) from None
    return [write_file(f"{base}.{ext}", data) for ext, data in images.items()]


def write_stdout(data: Data, raw: bool = False) -> None:
    """Write to standard output; a full stdout (or any other failure) is an error naming it, a
    reader that left (`| head`) is none: the rest of the output is discarded (docs/cli.md).

    The bytes go to the descriptor with os.write until every one is taken: a
    short write (the reader left mid-write) is followed by the write that fails
    with EPIPE, never taken for the whole. A pipe whose reader left before the
    output ended is a broken pipe too, though every write fit in its buffer.
    Text has its control characters escaped (infra/printable.py), its own
    newlines and tabs kept; `raw` text (CSV, whose rows end in CR LF) and
    bytes (JSON, which escapes them itself) are written as they are.
    """
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        raise UserError("<stdout>: cannot write: standard output is closed")
    if isinstance(data, str) and not raw:  # text for a terminal: no control character reaches it raw
        data = printable(data, lines=True)
    encoded = data if isinstance(data, bytes) else _encoded(data)
    try:
        sys.stdout.flush()  # whatever went through sys.stdout before comes first
        try:
            fd = sys.stdout.fileno()
        except io.UnsupportedOperation:  # a stream without a descriptor (a test's capture)
            sys.stdout.write(encoded.decode(_encoding(), "surrogateescape"))
            sys.stdout.flush()
            return
        _write_all(fd, encoded)
        if _reader_left(fd):
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
    except BrokenPipeError:
        discard_stdout()
    except OSError as exc:
        raise _failed("<stdout>", exc) from None


def discard_stdout() -> None:
    """The reader of stdout left (`| head`): what the run still prints goes nowhere, quietly,
    and the run goes on (its files, its warnings, its status), as `git log | head` ends."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _encoding() -> str:
    return getattr(sys.stdout, "encoding", None) or "utf-8"


def _encoded(text: str) -> bytes:
    """`text` as stdout's text layer would encode it; a lone surrogate as \\udXXX, as in files."""
    try:
        return text.encode(_encoding(), getattr(sys.stdout, "errors", None) or "strict")
    except UnicodeEncodeError:
        return text.encode(_encoding(), "backslashreplace")


def _write_all(fd: int, raw: bytes) -> None:
    """os.write until every byte is written (each write's length checked)."""
    view, done = memoryview(raw), 0
    while done < len(raw):
        try:
            written = os.write(fd, view[done:])
        except BlockingIOError:  # a non-blocking stdout handed down: wait until it takes more
            select.select([], [fd], [])
            continue
        if written <= 0:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        done += written


def _reader_left(fd: int) -> bool:
    """Is `fd` a pipe whose reader has closed it (POLLERR on the write end)?"""
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, AttributeError):  # no poll here: the writes' own errors are all there is
        return False


def write_stderr(text: str) -> None:
    """A line the reference's script writes to stderr, as it writes it (no `citeledger:` prefix)."""
    sys.stderr.write(printable(text, lines=True))
    sys.stderr.flush()


def note(message: str) -> None:
    print(f"citeledger: note: {message}", file=sys.stderr)


@contextlib.contextmanager
def output_dir(path: str) -> Iterator[str]:
    """Create `path` if missing and hold it for this run (refusing a concurrent one).

    Files written under `path` during the block (write_file, atomic_open,
    write_images) go to a staging directory and are swapped in together when
    the block ends without error; otherwise none of them is kept.
    """
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(f"{path}: --out names a file, not a directory")
    created = not os.path.isdir(path)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise _failed(path, exc) from None
    full = os.path.abspath(path)
    fd = None
    try:
        fd = _take_lock(path)
        _clean_leftovers(path)
        import tempfile  # --out only: a run printing to stdout never imports it

        try:
            stage = tempfile.mkdtemp(dir=path, prefix=STAGING)
        except OSError as exc:
            raise _failed(path, exc) from None
        staged = _Staged(full, stage)
        _STAGED[full] = staged
        try:
            yield path
            _STAGED.pop(full, None)
            _commit(path, staged)
        finally:
            _STAGED.pop(full, None)
            shutil.rmtree(stage, ignore_errors=True)
    except BaseException:
        if fd is not None:
            _release(path, fd)
            fd = None
        if created:  # a directory made for a run that failed: not left behind (if nothing else is in it)
            with contextlib.suppress(OSError):
                os.rmdir(path)
        raise
    finally:
        if fd is not None:
            _release(path, fd)


def _take_lock(path: str) -> int:
    """Hold `path`'s lock file (an flock: released by the kernel however the holder ends)."""
    lock = os.path.join(path, LOCK)
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o644)
        except OSError as exc:
            raise _failed(path, exc) from None
        try:
            lock_nowait(fd)
        except OSError as exc:
            os.close(fd)
            if exc.errno in LOCKED_ERRNOS:
                raise UserError(f"{path}: another citeledger run is writing into this directory") from None
            raise _failed(lock, exc) from None
        try:
            current = os.stat(lock)
            mine = os.fstat(fd)
            if (current.st_dev, current.st_ino) == (mine.st_dev, mine.st_ino):
                break
        except FileNotFoundError:
            pass
        os.close(fd)  # removed by the run that held it while this one waited: take the new one
    try:
        previous = os.read(fd, 64).decode("ascii", "replace").strip()
        if previous:  # its holder ended without removing it: it no longer holds the flock
            note(f"{path}: taking over from a run that ended without finishing "
                 f"(process {previous[:20]} held {LOCK})")
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError as exc:
        _release(path, fd)
        raise _failed(lock, exc) from None
    return fd


def _release(path: str, fd: int) -> None:
    if REMOVES_OPEN_FILES:
        discard(os.path.join(path, LOCK))  # removed while still held, so no one takes a stale file
    with contextlib.suppress(OSError):
        os.close(fd)
    if not REMOVES_OPEN_FILES:  # Windows: removable once closed (a run taking it between is noted, not harmed)
        discard(os.path.join(path, LOCK))


def _clean_leftovers(path: str) -> None:
    """Remove what a run killed in this directory left: staging and backup directories, temporary files.

    Called with the lock held, so none of them belongs to a live run.
    """
    removed = 0
    try:
        names = os.listdir(path)
    except OSError as exc:
        raise _failed(path, exc) from None
    for name in names:
        where = os.path.join(path, name)
        if name.startswith((STAGING, BACKUP)) and os.path.isdir(where) and not os.path.islink(where):
            if name.startswith(BACKUP):
                _restore(path, where)
            shutil.rmtree(where, ignore_errors=True)
            removed += 1
        elif TEMPORARY.fullmatch(name) and os.path.isfile(where):
            discard(where)
            removed += 1
    if removed:
        note(f"{path}: removed {removed} temporary file{'s' if removed != 1 else ''} "
             "left by a run that did not finish")


def _restore(path: str, backup: str) -> None:
    """A backup left by a run killed while swapping its files in: put back the files it moved aside
    whose place is empty (the ones already replaced stay as the new run wrote them)."""
    for folder, _, files in os.walk(backup):
        for name in files:
            old = os.path.join(folder, name)
            target = os.path.join(path, os.path.relpath(old, backup))
            if not os.path.lexists(target):
                with contextlib.suppress(OSError):
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    os.rename(old, target)


@contextlib.contextmanager
def _signals_held():
    """SIGTERM, SIGHUP and SIGINT wait until the block ends (then are delivered)."""
    held = set(HELD_SIGNALS)
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # no pthread_sigmask here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _commit(path: str, staged: _Staged) -> None:
    """Rename the run's files from staging into `path`, the previous ones set aside
    first; on any failure, every file is put back as it was."""
    rels = [rel for rel in staged.written if os.path.isfile(os.path.join(staged.stage, rel))]
    for rel in rels:  # what is in the way is found before anything moves
        target = os.path.join(path, rel)
        if os.path.isdir(target) and not os.path.islink(target):
            raise _failed(target, OSError(errno.EISDIR, os.strerror(errno.EISDIR)))
    import tempfile

    try:
        backup = tempfile.mkdtemp(dir=path, prefix=BACKUP)
    except OSError as exc:
        raise _failed(path, exc) from None
    done: list[tuple[str, bool, bool]] = []  # (rel, old set aside, new renamed in)
    with _signals_held():
        try:
            for rel in rels:
                target = os.path.join(path, rel)
                aside = os.path.lexists(target)
                if aside:
                    os.makedirs(os.path.dirname(os.path.join(backup, rel)), exist_ok=True)
                    os.rename(target, os.path.join(backup, rel))
                done.append((rel, aside, False))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                os.rename(os.path.join(staged.stage, rel), target)
                done[-1] = (rel, aside, True)
        except OSError as exc:
            for rel, aside, renamed in reversed(done):
                target = os.path.join(path, rel)
                with contextlib.suppress(OSError):
                    if renamed:
                        os.unlink(target)
                    if aside:
                        os.rename(os.path.join(backup, rel), target)
            shutil.rmtree(backup, ignore_errors=True)
            raise _failed(os.path.join(path, rel), exc) from None
        shutil.rmtree(backup, ignore_errors=True)
