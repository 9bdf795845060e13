"""Split an explore response into sections, one per file header."""

from __future__ import annotations

import re

from .header import parse_header
from .models import Section
from .units import MEASURES


def split_sections(text: str, rules) -> tuple[Section, ...]:
    """Sections of one response text under a ruleset's `splitter` rules.

    A section runs from its header line to the next header; the last one ends
    at the trailer marker (the guidance quote) or the end of the text. With
    `trailing_block: meta`, whatever follows the last section's closing code
    fence is split off as a meta section charged to no file.
    """
    measure = MEASURES[rules.unit]
    heads = list(rules.header.finditer(text))
    if not heads:
        return ()
    sections = []
    for i, head in enumerate(heads):
        start = head.start()
        if i + 1 < len(heads):
            end = heads[i + 1].start()
        else:
            found = text.find(rules.trailer, start) if rules.trailer else -1
            end = len(text) if found == -1 else found
        piece = text[start:end]
        path, suffix = head.group(1), head.group(2)
        meta = None
        if i + 1 == len(heads) and rules.trailing_block == "meta":
            piece, meta = _cut_after_last_fence(piece, head.end() - start)
        sections.append(Section(path, parse_header(path, suffix), measure(piece), piece))
        if meta:
            sections.append(Section("", None, measure(meta), meta, meta=True))
    return tuple(sections)


_FENCE = re.compile(r"^```[^\n]*$", re.M)


def _cut_after_last_fence(piece: str, header_end: int) -> tuple[str, str]:
    """Split a last section after the fence that closes its code block.

    A section without a code block (a stale "source omitted" header) ends
    with its header line; one whose last block is never closed is all source.
    `header_end` matters because a header's path may run over a line end.
    """
    fences = list(_FENCE.finditer(piece, header_end))
    if len(fences) % 2:
        return piece, ""
    close = fences[-1].end() if fences else piece.find("\n", header_end)
    if close == -1:
        return piece, ""
    if close < len(piece) and piece[close] == "\n":
        close += 1
    if not piece[close:].strip():  # blank lines are not a block
        return piece, ""
    return piece[:close], piece[close:]
