"""Sections: a tool result (an explore response, a Read, Grep or Bash result) cut into one piece
per returned file.

The records here (`Section`, `Header`, `Call`) are what a source (a plugin,
core/source.py) makes of a tool result: the splitter the explore and mcp
sources share, with its header grammar, makes Headers. The accountant charges
sections and the channels judge them.
"""

from __future__ import annotations

from typing import Callable, Optional

import attrs

from citeledger.core.transcript import Origin

frozen = attrs.frozen


@frozen
class Symbol:
    name: str
    kind: str


@attrs.frozen(cache_hash=True)  # a dict key of channels' per-envelope work
class Header:
    """A section header line: the path the splitter's header pattern matched,
    and the rest of the line, whose names `read` (the source's grammar)
    parses when first read.

    Equal lines are equal Headers: the names are a function of the line.
    """

    path: str
    suffix: str
    # (path, suffix) -> (symbols, more, tags): the grammar of the source that
    # cut the line; None reads no names.
    read: Optional[Callable] = attrs.field(default=None, eq=False, repr=False)
    # (symbols, more, tags), parsed on first read. Most headers are never
    # read: only a channel that wants a name they hold does.
    _names: Optional[tuple] = attrs.field(init=False, default=None, eq=False, repr=False)

    def _read(self) -> tuple:
        names = self._names
        if names is None:
            names = self.read(self.path, self.suffix) if self.read is not None else ((), None, ())
            object.__setattr__(self, "_names", names)
        return names

    @property
    def symbols(self) -> tuple["Symbol", ...]:
        """Every `name(kind)` item, any kind, in the line's order."""
        return self._read()[0]

    @property
    def more(self) -> Optional[int]:
        """The `+N more` count of the names, if any."""
        return self._read()[1]

    @property
    def tags(self) -> tuple["RenderTag", ...]:
        """The render tags, each with the names listed bare before the first "·"."""
        return self._read()[2]


@frozen
class RenderTag:
    """A render tag (`· focused (...)`, `· skeleton (...)`) and the bare names listed before it."""

    tag: str
    names: tuple[str, ...]


@frozen
class Section:
    """One file's section of a tool result (an explore response, a Read, Grep, shell result ...).

    `chars` is measured in the ruleset's unit; `text` (header line included)
    is kept for channels that look inside the source (line ranges, quotes).
    """

    path: str
    header: Optional[Header]
    chars: int
    text: str
    meta: bool = False  # a trailing non-source block, charged to no file


@frozen
class Call:
    """One tool result that had at least one section (its source: the explore source, read, grep, ...)."""

    number: int  # 1-based, after responses without sections are dropped
    sections: tuple[Section, ...]
    origin: Origin
    # Calls of one transcript that returned the same text share a key (and
    # equal sections), so their sizes are tallied once; 0: not known.
    text_key: int = 0
    source: str = ""  # the name of the source that made it (core/source.py)
    response: int = -1  # its index among the responses the ruleset read (core.readable_responses), else -1
    # The result_key of the kept tool result it was cut from (core/source.py; None: an explore response).
    result: Optional[tuple] = attrs.field(default=None, eq=False)

