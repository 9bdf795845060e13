"""Which implementation of the hot path runs: the C kernel or pure Python.

The compiled module `citeledger.core._kernel` (core/_kernel.c) is built by
`pip install` where a C compiler exists (setup.py, optional: install never
fails without one). Pure Python stays the reference: it runs when the kernel
is absent or when CITELEDGER_PURE=1, and tests/test_kernel.py checks the two
agree on hostile inputs. Both give the same figures to the byte.
"""

from __future__ import annotations

import os

PURE_ENV = "CITELEDGER_PURE"

native = None
_why = "no compiled kernel installed"
if os.environ.get(PURE_ENV, "") not in ("", "0"):
    _why = f"{PURE_ENV}={os.environ[PURE_ENV]}"
else:
    try:
        from citeledger.core import _kernel as native  # type: ignore[no-redef]
    except ImportError:
        native = None


def kernel_name() -> str:
    """What `citeledger --version` reports: the path that is running, and why."""
    if native is not None:
        return "C kernel (citeledger.core._kernel)"
    return f"pure Python ({_why})"
