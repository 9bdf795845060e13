"""Numbers written in text: counts and line numbers read with a digit bound.

A digit run longer than MAX_DIGITS is no number (docs/decisions.md): no
response lists that many names or lines, and Python's int() refuses runs past
4,300 digits, so nothing unbounded reaches it.
"""

from __future__ import annotations

MAX_DIGITS = 12


def bounded_int(text: str) -> int | None:
    """The number `text` writes (ASCII digits only, 1 to MAX_DIGITS of them), else None."""
    if not 0 < len(text) <= MAX_DIGITS or not text.isascii() or not text.isdigit():
        return None
    return int(text)
