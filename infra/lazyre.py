"""A `re` pattern compiled on its first use: a module's patterns cost a run nothing until it
matches with them (a run without a shell command never compiles the shell's)."""

from __future__ import annotations

import re


class LazyPattern:
    """`re.compile(source, flags)`, compiled when one of its attributes is first asked for.

    After that, each attribute asked for (`search`, `finditer`, `sub`, ...) is the compiled
    pattern's own, kept on the instance: a call costs what the compiled pattern's does.
    """

    def __init__(self, source: str, flags: int = 0):
        self._source, self._flags = source, flags

    def __getattr__(self, name: str):
        if name.startswith("__"):  # copy and pickle probing: not a pattern's method
            raise AttributeError(name)
        value = getattr(re.compile(self._source, self._flags), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self._flags!r})"
