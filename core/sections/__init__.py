"""Sections: an explore response cut into one piece per returned file.

The records here (`Section`, `Header`, `Call`) are what the splitter
(`splitter.py`, with the header grammar in `header.lark`) makes of a response
text; the accountant charges them and the channels judge them.
"""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.core.transcript import Origin

frozen = attrs.frozen


@frozen
class Symbol:
    name: str
    kind: str


@attrs.frozen(cache_hash=True)  # a dict key of channels' per-envelope work
class Header:
    """A parsed section header line."""

    path: str
    suffix: str
    symbols: tuple[Symbol, ...]  # every `name(kind)` item, any kind
    more: Optional[int] = None  # the `+N more` count
    tags: tuple["RenderTag", ...] = ()


@frozen
class RenderTag:
    """A render tag (`· focused (...)`, `· skeleton (...)`) and the bare names listed before it."""

    tag: str
    names: tuple[str, ...]


@frozen
class Section:
    """One file's section of an explore response.

    `chars` is measured in the ruleset's unit; `text` is kept for channels that
    look inside the source (line ranges, quotes).
    """

    path: str
    header: Optional[Header]
    chars: int
    text: str
    meta: bool = False  # a trailing non-source block, charged to no file


@frozen
class Call:
    """One explore response that had at least one section."""

    number: int  # 1-based, after responses without sections are dropped
    sections: tuple[Section, ...]
    origin: Origin
    # Calls of one transcript that returned the same text share a key (and
    # equal sections), so their sizes are tallied once; 0: not known.
    text_key: int = 0
