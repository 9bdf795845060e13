"""A session's arm and question read off its path by an `--arm-pattern` (compiled by cli/arms.py)."""

from __future__ import annotations

import os
from typing import Optional

# What sweep --arm-pattern adds to every session row and CSV row.
ARM_COLUMNS = ("arm", "question")


def labels_of(pattern, key: str) -> Optional[tuple[str, str]]:
    """(question, arm) of a session by its path relative to the root, or None when unmatched."""
    m = pattern.search(key.replace(os.sep, "/"))
    if m is None or m.group("question") is None or m.group("arm") is None:
        return None
    return m.group("question"), m.group("arm")
