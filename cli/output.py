"""Writing what a command produced: stdout, or files written atomically.

Every file goes to a temporary name in its own directory and is renamed over
the target only when complete, so an interrupted run never leaves a
half-written file, and two runs writing one file leave one of them whole. An
`--out` directory is held by a lock file for the run: a second run into the
same directory refuses at once instead of interleaving its files.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from typing import IO, Iterator, Union

from citeledger.core import UserError

LOCK = ".citeledger.lock"

Data = Union[bytes, str]


def _failed(path: str, exc: OSError) -> UserError:
    return UserError(f"{path}: cannot write: {exc.strerror or exc}")


@contextlib.contextmanager
def atomic_open(path: str, mode: str = "wb") -> Iterator[IO]:
    """A file object whose contents replace `path` only when the block ends without error."""
    folder = os.path.dirname(path) or "."
    try:
        os.makedirs(folder, exist_ok=True)  # `--html new/x.html` makes new/, as --plot and --out do
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
        # mkstemp makes the file owner-only; the output gets what open() would give it.
        os.fchmod(fd, 0o666 & ~_umask())
    except OSError as exc:
        raise _failed(path, exc) from None
    try:
        text = "b" not in mode
        # backslashreplace: a lone surrogate (a name's undecodable byte) is written as \\udcff.
        opts = {"encoding": "utf-8", "errors": "backslashreplace", "newline": ""} if text else {}
        with os.fdopen(fd, "w" if text else "wb", **opts) as fh:
            yield fh
        os.replace(tmp, path)
    except OSError as exc:
        _discard(tmp)
        raise _failed(path, exc) from None
    except BaseException:
        _discard(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _discard(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def write_file(path: str, data: Data) -> str:
    """Write `data` to `path` atomically; returns the path."""
    with atomic_open(path, "wb") as fh:
        fh.write(data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data)
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


def write_stdout(data: Data) -> None:
    """Write to standard output; a closed or full stdout is an input/output error naming it."""
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        raise UserError("<stdout>: cannot write: standard output is closed")
    try:
        if isinstance(data, str):
            try:
                sys.stdout.write(data)
            except UnicodeEncodeError:  # a lone surrogate: written as \udXXX, as in files
                sys.stdout.flush()
                sys.stdout.buffer.write(data.encode(sys.stdout.encoding or "utf-8", "backslashreplace"))
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _failed("<stdout>", exc) from None


@contextlib.contextmanager
def output_dir(path: str) -> Iterator[str]:
    """Create `path` if missing and hold it for this run (refusing a concurrent one)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(f"{path}: --out names a file, not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise _failed(path, exc) from None
    lock = os.path.join(path, LOCK)
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        raise UserError(
            f"{path}: another citeledger run is writing into this directory "
            f"(remove {LOCK} if no run is going on)"
        ) from None
    except OSError as exc:
        raise _failed(path, exc) from None
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
        os.close(fd)
        yield path
    finally:
        _discard(lock)
