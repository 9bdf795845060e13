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
    # `$` (multiline) stops before a newline or at the text's end, so one past
    # the match's end is its newline when there is one (a slice stops at the end).
    return tuple([
        SourceLine(int(m[1]), m[2], section_text[m.start() : m.end() + 1])
        for m in _NUMBERED.finditer(section_text)
    ])


def shipped_numbers(section_text: str) -> set[int]:
    """The numbers of a section's shipped lines (shipped_lines' numbers, without a record each)."""
    return {int(number) for number, _ in _NUMBERED.findall(section_text)}


def line_cost(section_text: str, lines: frozenset | None, measure: Callable[[str], int]) -> int:
    """Chars of the section's shipped lines whose number is in `lines` (None: all)."""
    # The lines as shipped_lines reads them, without a record each: a line's
    # match is its number, a tab and its code, then comes its newline, which
    # only the text's last line lacks.
    every = _NUMBERED.findall(section_text)
    kept = every if lines is None else [line for line in every if int(line[0]) in lines]
    if not kept:
        return 0
    # Every unit's sizes add up across lines (core/sections/units.py) and a
    # newline is one unit in each: one measure of the lines joined is the sum.
    size = measure("\n".join([number + "\t" + code for number, code in kept]))
    last = kept[-1]
    if last is every[-1] and section_text[section_text.rfind("\n") + 1 :] == last[0] + "\t" + last[1]:
        return size  # the text's last line
    return size + 1
