"""infra/memo.py: bounded by weight, the least recently used entry out first."""

from __future__ import annotations

from citeledger.core import BoundedMemo


def test_past_its_limit_the_least_recently_used_entries_go():
    memo = BoundedMemo(10)
    memo.put("a", 1, 4)
    memo.put("b", 2, 4)
    assert memo.get("a") == 1  # "b" is now the least recently used
    memo.put("c", 3, 4)
    assert "b" not in memo and memo.get("a") == 1 and memo.get("c") == 3
    assert memo.held == 8 and len(memo) == 2


def test_one_entry_heavier_than_the_limit_is_still_kept_alone():
    memo = BoundedMemo(3)
    memo.put("a", 1, 2)
    memo.put("big", 2, 50)
    assert len(memo) == 1 and memo.get("big") == 2 and memo.held == 50


def test_putting_a_key_again_replaces_its_weight():
    memo = BoundedMemo(100)
    memo.put("a", 1, 30)
    memo.put("a", 2, 40)
    assert memo.get("a") == 2 and memo.held == 40 and memo.get("missing", "none") == "none"
