"""A temporary file records wait in before they are written (a sweep's JSON lines until the header
is known, the diagnostic join's session records).

Every failure of it — a full /tmp, a file-size limit — is one line naming the temporary directory,
`/tmp: cannot write a temporary file: No space left on device` (exit 2), wherever it happens: on a
write, on the buffer's flush when it is read back, or on closing it while another error unwinds
(then it is dropped, never raised over the error that ended the run).
"""

from __future__ import annotations

import contextlib
import tempfile
from typing import Iterator

from citeledger.core.errors import UserError

BLOCK = 1 << 20  # bytes read back at a time


@contextlib.contextmanager
def spooling() -> Iterator[None]:
    """An OSError inside the block is the temporary directory's one-line UserError."""
    try:
        yield
    except OSError as exc:
        raise UserError(f"{tempfile.gettempdir()}: cannot write a temporary file: {exc.strerror or exc}") from None


class Spool:
    """Bytes written in order and read back once, in blocks."""

    def __init__(self):
        with spooling():
            self._fh = tempfile.TemporaryFile()

    def write(self, data: bytes) -> None:
        with spooling():
            self._fh.write(data)

    def blocks(self) -> Iterator[bytes]:
        """Everything written, from the start, in blocks of BLOCK bytes."""
        with spooling():
            self._fh.seek(0)
        while True:
            with spooling():
                block = self._fh.read(BLOCK)
            if not block:
                return
            yield block

    def close(self) -> None:
        """Closed; a failure to flush what it still buffered is dropped (the run has ended or failed)."""
        with contextlib.suppress(OSError):
            self._fh.close()
