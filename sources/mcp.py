"""The mcp source: any other tool whose output is sectioned by file, declared in YAML.

A ruleset names the tool (`tool`, a pattern searched in the tool's name),
the header line that opens each file's section (`header`, a pattern whose
group 1 is the path and group 2 the rest of the line) and, optionally, the
marker the last section ends at (`trailer`). The result is cut exactly as an
explore response is (sources/sectioned/, the explore source's splitter), and the rest
of each header line is read by its lark grammar (header.lark), so names in
`name(kind)` form reach the symbol channel. Text before the first header is
not counted, as in an explore response (the reference's rule). A result with
no header at all is charged whole to (unknown), with a warning: it is never
dropped.

A tool the reader takes for an explore call (the explore source's `tool`) is
that source's, never this one's. See docs/sources.md.
"""

from __future__ import annotations

import re

import attrs

from citeledger.core import KeptTools, Pieces, Pulled, UNKNOWN, hookimpl, needs_groups, result_key, unknown_warning
from citeledger.sources.sectioned import Fixed, shared_cuts


def _one_of(*choices):
    return attrs.validators.in_(choices)


class McpSource:
    name = "mcp"

    @attrs.frozen
    class Options:
        # Searched in the tool's name, e.g. 'mcp__acme__search_code$'.
        tool: re.Pattern
        # A section header line; group 1 the path, group 2 the rest of the line.
        header: re.Pattern = attrs.field(validator=needs_groups(2))
        # The last section ends at the first occurrence of this after its header ("": the end).
        trailer: str = ""
        # What follows the last section's closing code fence: the last file's, or meta.
        trailing_block: str = attrs.field(default="last-file", validator=_one_of("last-file", "meta"))
        # Joined between a result's content items (as the explore source's option).
        block_separator: str = ""

    def __init__(self, options):
        self.options = options

    def tools(self):
        return KeptTools(patterns=(self.options.tool,))

    def cuts(self, given, ruleset, memo: dict):
        options = self.options
        join = options.block_separator.join
        mine = [r for r in given.results if options.tool.search(r.name)]
        texts = [join(r.blocks) for r in mine]
        pulled, warnings = [], []
        for result, text, cut in zip(mine, texts, shared_cuts(memo).cut_all(texts, options)):
            if cut.pieces(options.trailing_block):
                pulled.append(Pulled(Fixed(cut, options.trailing_block), result.origin, self.name, result=result_key(result)))
            elif text:
                warnings.append(unknown_warning(self.name, result, "no header line found"))
                pulled.append(Pulled(Pieces([(UNKNOWN, text)]), result.origin, self.name, result=result_key(result)))
        return pulled, warnings


@hookimpl
def citeledger_register_sources(register):
    register(McpSource)
