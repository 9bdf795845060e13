"""Source lines inside an explore section: what line-level accounting charges.

A section's body is a fenced block of numbered source lines, `126\t<code>`.
Gap markers (`... (gap: name (file:line)) ...`), the header, fences and blank
separators carry no number, so they are not shipped lines: nothing can cite
them, and line-level accounting never credits them.
"""

from __future__ import annotations

import re
from typing import Callable

import attrs

from citeledger.core.numbers import MAX_DIGITS

# The number, a tab, the code. `[ \t]*$` is not stripped: the code is verbatim.
# A number of more than MAX_DIGITS digits makes no numbered line (core/numbers.py).
_NUMBERED = re.compile(rf"^([0-9]{{1,{MAX_DIGITS}}})\t([^\n]*)$", re.M)


@attrs.frozen
class SourceLine:
    number: int  # the line number in the file, as codegraph printed it
    code: str  # the source text after the tab
    raw: str  # the whole line as shipped, with its newline (what it cost)


def shipped_lines(section_text: str) -> tuple[SourceLine, ...]:
    """Every numbered line of a section, in order."""
    out = []
    for m in _NUMBERED.finditer(section_text):
        end = m.end() + 1 if m.end() < len(section_text) and section_text[m.end()] == "\n" else m.end()
        out.append(SourceLine(int(m.group(1)), m.group(2), section_text[m.start() : end]))
    return tuple(out)


def line_cost(section_text: str, lines: frozenset | None, measure: Callable[[str], int]) -> int:
    """Chars of the section's shipped lines whose number is in `lines` (None: all)."""
    return sum(
        measure(line.raw) for line in shipped_lines(section_text) if lines is None or line.number in lines
    )
