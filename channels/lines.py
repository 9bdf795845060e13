"""Helpers the line-aware channels share (the numbered source lines themselves
are core's: `shipped_lines` of citeledger.core)."""

from __future__ import annotations

import re
from typing import Iterable

from citeledger.core import bounded_int

_SPACE = re.compile(r"\s+")


def line_number(text: str) -> int | None:
    """The line number `text` writes, else None (core.bounded_int: a digit run past its bound is none)."""
    return bounded_int(text)


def normalise_code(text: str) -> str:
    """Whitespace-normalised code: runs of white space become one space, ends trimmed."""
    return _SPACE.sub(" ", text).strip()


def window(numbers: Iterable[int], context: int) -> set[int]:
    """The numbers with `context` lines either side."""
    out: set[int] = set()
    for n in numbers:
        out.update(range(max(1, n - context), n + context + 1))
    return out


def normalise_path(path: str) -> str:
    """As the path channel compares: backslashes to '/', one leading './' removed."""
    path = path.replace("\\", "/")
    return path[2:] if path.startswith("./") else path


def names_file(cited: str, path: str) -> bool:
    """The reference's path match: equal, or one ends with '/' + the other."""
    c, p = normalise_path(cited), normalise_path(path)
    return c == p or p.endswith("/" + c) or c.endswith("/" + p)
