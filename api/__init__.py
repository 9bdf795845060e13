"""citeledger: which share of the bytes a code-retrieval tool returned went to files the answer cited.

The Python API (docs/api.md), the same engine the command line runs:

- `load_ruleset(name_or_path)`: a shipped ruleset by name, or a YAML file;
- `score(paths, ruleset="default")`: one session, the `SessionScore` that
  `citeledger score --json` renders;
- `sweep(paths, rulesets=("default",), jobs=None, exclude=())`: every
  session under some paths, the `session` records `citeledger sweep --json`
  writes, in its order;
- `frames(paths, ...)`: the same sweep as pandas DataFrames, one row per
  session, per call and per returned file (`pip install 'citeledger[pandas]'`).

Each name loads its module on first use: `import citeledger` (and the
command line, which lives in `citeledger.cli`) imports no engine and no pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

_LAZY = {
    "load_ruleset": "citeledger._score",
    "score": "citeledger._score",
    "sweep": "citeledger._sweep",
    "frames": "citeledger._frames",
}

if TYPE_CHECKING:  # for type checkers and editors; at run time each name loads on first use
    from citeledger._frames import frames
    from citeledger._score import load_ruleset, score
    from citeledger._sweep import sweep


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'citeledger' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value  # the next use finds it without this call
    return value


def __dir__() -> list[str]:
    return sorted([*_LAZY, "__version__"])


__all__ = sorted(_LAZY)
