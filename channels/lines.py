"""Source lines inside an explore section, and helpers the line-aware channels share.

A section's body is a fenced block of numbered source lines, `126\t<code>`.
Gap markers (`... (gap: name (file:line)) ...`), the header, fences and blank
separators carry no number, so they are not shipped lines: nothing can cite
them, and line-level accounting never credits them.
"""

from __future__ import annotations

import functools
import re
from typing import Callable, Iterable

import attrs

# The number, a tab, the code. `[ \t]*$` is not stripped: the code is verbatim.
_NUMBERED = re.compile(r"^([0-9]+)\t([^\n]*)$", re.M)
_SPACE = re.compile(r"\s+")


@attrs.frozen
class SourceLine:
    number: int  # the line number in the file, as codegraph printed it
    code: str  # the source text after the tab
    raw: str  # the whole line as shipped, with its newline (what it cost)


@functools.lru_cache(maxsize=4096)
def shipped_lines(section_text: str) -> tuple[SourceLine, ...]:
    """Every numbered line of a section, in order (cached: several channels ask)."""
    out = []
    for m in _NUMBERED.finditer(section_text):
        end = m.end() + 1 if m.end() < len(section_text) and section_text[m.end()] == "\n" else m.end()
        out.append(SourceLine(int(m.group(1)), m.group(2), section_text[m.start() : end]))
    return tuple(out)


def normalise_code(text: str) -> str:
    """Whitespace-normalised code: runs of white space become one space, ends trimmed."""
    return _SPACE.sub(" ", text).strip()


def line_cost(section_text: str, lines: frozenset | None, measure: Callable[[str], int]) -> int:
    """Chars of the section's shipped lines whose number is in `lines` (None: all)."""
    return sum(
        measure(line.raw) for line in shipped_lines(section_text) if lines is None or line.number in lines
    )


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
