"""Which implementation of the hot path runs: the C kernel or pure Python.

The compiled modules `citeledger.core._kernel` (core/_kernel.c: sections)
and `citeledger.core._scan` (core/_scan.c: reading transcript lines) are
built by `pip install` where a C compiler exists (setup.py, optional: install
never fails without one). Pure Python stays the reference: it runs when a
module is absent or when CITELEDGER_PURE=1, and tests/test_kernel.py and
tests/test_scan.py check the two agree on hostile inputs. Both give the same
figures to the byte.
"""

from __future__ import annotations

import os

PURE_ENV = "CITELEDGER_PURE"

native = None
scan = None  # the line scanner (readers/jsonl.py)
_why = "no compiled kernel installed"
if os.environ.get(PURE_ENV, "") not in ("", "0"):
    _why = f"{PURE_ENV}={os.environ[PURE_ENV]}"
else:
    try:
        from citeledger.core import _kernel as native  # type: ignore[no-redef]
    except ImportError:
        native = None
    try:
        from citeledger.core import _scan as scan  # type: ignore[no-redef]
    except ImportError:
        scan = None


def kernel_name() -> str:
    """What `citeledger --version` reports: the path that is running, and why."""
    built = [m.__name__ for m in (native, scan) if m is not None]
    if len(built) == 2:
        return f"C kernel ({', '.join(built)})"
    if built:  # one module built, the other not: say which half is pure
        pure_half = "reading" if scan is None else "sections"
        return f"C kernel ({built[0]}; {pure_half}: pure Python)"
    return f"pure Python ({_why})"
