"""A memo bounded in memory: the least recently used entries go first.

What a sweep's worker keeps between sessions (the explore cuts, the parsed
header lines: sources/sectioned) is held here, each entry with a weight (the
characters it holds, or 1), and never more than `limit` of them: past it, the
least recently used entries are dropped. Keys are values (texts, patterns,
options), never object ids, so a hit is always the same work done again.
"""

from __future__ import annotations

from collections import OrderedDict


class BoundedMemo:
    """key -> value, least recently used out past `limit` of total weight (one entry is always kept)."""

    __slots__ = ("_items", "held", "limit")

    def __init__(self, limit: int):
        self._items: OrderedDict = OrderedDict()  # key -> (value, weight), least recent first
        self.held = 0
        self.limit = limit

    def get(self, key, default=None):
        found = self._items.get(key)
        if found is None:
            return default
        self._items.move_to_end(key)
        return found[0]

    def put(self, key, value, weight: int = 1) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.held -= old[1]
        self._items[key] = (value, weight)
        self.held += weight
        while self.held > self.limit and len(self._items) > 1:
            _, (_, dropped) = self._items.popitem(last=False)
            self.held -= dropped

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key) -> bool:
        return key in self._items
