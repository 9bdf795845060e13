"""Tool output sectioned by file headers: the splitter (`splitter.py`) and the header
grammar (`header.lark`, read by `header.py`) that the explore source and the mcp source
share, each under its own options (header pattern, trailer, trailing-block rule)."""

from __future__ import annotations

from citeledger.sources.sectioned.splitter import Cuts, Fixed

__all__ = ["CUTS", "CUTS_HELD", "Cuts", "Fixed", "shared_cuts"]

# The memo key of the scoring call's Cuts, shared by the explore and mcp sources so
# every cut of one call is numbered once (equal numbers, equal sections).
CUTS = "cuts"

# Response text one scoring call keeps cut (about 100 real explore responses):
# past it the memo starts afresh, so its memory stays flat in the corpus's size.
CUTS_HELD = 1 << 20


def shared_cuts(memo: dict) -> Cuts:
    found = memo.get(CUTS)
    if found is None:
        found = memo[CUTS] = Cuts(CUTS_HELD)
    return found
