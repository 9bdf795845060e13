"""What leaves the program for a terminal or a spreadsheet, made inert.

A returned path or a Read `file_path` is the transcript's text: ESC, OSC, BEL
and the other control characters would reach a terminal raw (set its title,
clear the screen, write the clipboard with OSC 52), a newline would forge a
report row, and a CSV cell opening with `=` would run as a spreadsheet
formula (CWE-1236). `printable` writes control characters as escapes in text
output; `inert_cell` neutralises a CSV cell as OWASP advises (a leading `'`).
"""

from __future__ import annotations

import re

# C0, DEL and C1 controls, the line and paragraph separators, and the bidirectional
# embeddings, overrides and isolates (which reorder what a row shows).
CONTROLS = tuple(range(0x20)) + tuple(range(0x7F, 0xA0)) + (0x2028, 0x2029) \
    + tuple(range(0x202A, 0x202F)) + tuple(range(0x2066, 0x206A))
_SHORT = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _escape(code: int) -> str:
    return _SHORT.get(code) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


_ALL = {c: _escape(c) for c in CONTROLS}
_LINES = {c: e for c, e in _ALL.items() if c not in (0x09, 0x0A)}


def printable(text: str, lines: bool = False) -> str:
    """`text` with every control character written as a backslash escape (`\\x1b`, `\\n`,
    `\\u202e`). `lines`: a rendered block's own newlines and tabs stay as they are."""
    return text.translate(_LINES if lines else _ALL)


# What a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:inf|nan|\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def inert_cell(cell: str) -> str:
    """A CSV cell a spreadsheet would run as a formula, with `'` before it; a number stays a number."""
    if cell.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell
