"""Tool output sectioned by file headers: the splitter (`splitter.py`) and the header
grammar (`header.lark`, read by `header.py`) that the explore source and the mcp source
share, each under its own options (header pattern, trailer, trailing-block rule)."""

from __future__ import annotations

from citeledger.sources.sectioned.splitter import Cuts, Fixed

__all__ = ["CUTS", "CUTS_HELD", "HEADERS_HELD", "Cuts", "Fixed", "shared_cuts"]

# The memo key of the scoring call's Cuts, shared by the explore and mcp sources so
# every cut of one call is numbered once (equal numbers, equal sections).
CUTS = "cuts"

# What the memo of a scoring call (a sweep's worker: core.accountant.Plan) keeps,
# least recently used out: 2 M characters of response text (about 170 real explore
# responses; an A/B pass's three groups return 36 distinct ones, 0.5 M characters)
# and 5,000 header lines beyond those (a header line is a Header with its parsed
# names: about 1 KB). About 8 MB a worker at most, whatever the corpus's size
# (measured: bench/README.md, "The lean engine").
CUTS_HELD = 2 << 20
HEADERS_HELD = 5_000


def shared_cuts(memo: dict) -> Cuts:
    found = memo.get(CUTS)
    if found is None:
        found = memo[CUTS] = Cuts(CUTS_HELD, HEADERS_HELD)
    return found
