"""The codegraph_explore source: explore responses cut at their file headers.

The reference metric's envelope (spec, reference-metric.md): every
successful result of a tool whose name contains `reader.explore_tool`, its
content items joined with `reader.block_separator`, cut by `splitter.header`
(`splitter.py`) up to `splitter.trailer`; the header lines' names are read
by `header.lark` (`header.py`). Its rules are the ruleset's `reader` and
`splitter` keys, which the reference defines: it has no options of its own.
"""

from __future__ import annotations

import attrs

from citeledger.core import Pulled, hookimpl
from citeledger.sources.codegraph_explore.splitter import Cuts

# The memo key of the scoring call's Cuts, shared with the mcp source so
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


class CodegraphExplore:
    name = "codegraph_explore"

    @attrs.frozen
    class Options:
        """No keys: `reader.explore_tool` and `splitter` are this source's rules."""

    def __init__(self, options=None):
        self.options = options

    def tools(self):
        return None  # explore responses are kept whatever the ruleset

    def cuts(self, given, ruleset, memo: dict):
        join = ruleset.reader.block_separator.join
        responses = given.responses
        cuts = shared_cuts(memo).cut_all([join(r.blocks) for r in responses], ruleset.splitter)
        name = self.name
        return [Pulled(cut, r.origin, name, i) for i, (cut, r) in enumerate(zip(cuts, responses))], ()


@hookimpl
def citeledger_register_sources(register):
    register(CodegraphExplore)
