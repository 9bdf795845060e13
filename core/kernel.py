"""Which implementation of the hot path runs: the C kernel or pure Python.

The compiled modules `citeledger.core._kernel` (core/_kernel.c: sections),
`citeledger.core._scan` (core/_scan.c: reading transcript lines) and
`citeledger.core._match` (core/_match.c: the shipped citation patterns) are
built by `pip install` where a C compiler exists (setup.py, optional: install
never fails without one). Pure Python stays the reference: it runs when a
module is absent or when CITELEDGER_PURE=1, and tests/test_kernel.py,
tests/test_scan.py and tests/test_match.py check the two agree on hostile inputs. Both give the same
figures to the byte.
"""

from __future__ import annotations

import os

PURE_ENV = "CITELEDGER_PURE"

native = None
scan = None  # the line scanner (readers/jsonl.py)
match = None  # the shipped citation patterns (core/matcher.py)
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
    try:
        from citeledger.core import _match as match  # type: ignore[no-redef]
    except ImportError:
        match = None

# (part, module variable, what runs without the module)
_PARTS = (("sections", "native", "pure Python"), ("reading", "scan", "pure Python"), ("citations", "match", "RE2"))


def kernel_name() -> str:
    """What `citeledger --version` reports: the path that is running, and why."""
    modules = {part: globals()[name] for part, name, _ in _PARTS}
    built = [m.__name__.rsplit(".", 1)[1] for m in modules.values() if m is not None]  # _kernel, ...
    if len(built) == len(modules):
        return f"C kernel: citeledger.core.{{{', '.join(built)}}}"
    if built:  # some modules built, others not: say which parts are pure
        rest = "; ".join(f"{part}: {instead}" for part, name, instead in _PARTS if modules[part] is None)
        return f"C kernel: citeledger.core.{{{', '.join(built)}}}; {rest}"
    return f"pure Python ({_why})"
