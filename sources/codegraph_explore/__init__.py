"""The codegraph_explore source: explore responses cut at their file headers.

The reference metric's envelope (spec, reference-metric.md): every
successful result of a tool whose name contains the `tool` option, its
content items joined with `block_separator`, cut by `header` up to `trailer`
(sources/sectioned/, the splitter the mcp source shares); the header lines'
names are read by `header.lark`. These are this source's options in a ruleset
(`sources: codegraph_explore: {...}`); default.yaml holds the reference's
values, and `tool`'s default is the one place the tool's name is written.
"""

from __future__ import annotations

import re

import attrs

from citeledger.core import Pulled, hookimpl, needs_groups
from citeledger.sources.sectioned import Fixed, shared_cuts


class CodegraphExplore:
    name = "codegraph_explore"

    # The keys these options had before they were this source's: the loader refuses
    # them, naming the new key (a ruleset written for them must not change meaning).
    moved = {
        "reader.explore_tool": "tool",
        "reader.block_separator": "block_separator",
        "splitter.header": "header",
        "splitter.trailer": "trailer",
        "splitter.trailing_block": "trailing_block",
    }

    @attrs.frozen(cache_hash=True)
    class Options:
        # A section header line; group 1 the path, group 2 the rest of the line. Written
        # to behave as the reference's JavaScript /^...$/m.
        header: re.Pattern = attrs.field(validator=needs_groups(2))
        # The last section ends at the first occurrence of this after its header.
        trailer: str
        # Joined between a tool_result's content items (the reference: nothing).
        block_separator: str
        # What follows the last section's code block: charged to the last file
        # ("last-file", the reference) or to a meta bucket charged to no file.
        trailing_block: str = attrs.field(validator=attrs.validators.in_(("last-file", "meta")))
        # Tool names containing this are explore calls: their results are the reader's
        # explore responses (`Transcript.responses`), found by name nowhere else.
        tool: str = "codegraph_explore"

    # What a reader keeps as explore responses when no ruleset says (core.ReadOptions()).
    default_explore_tool = attrs.fields(Options).tool.default

    def __init__(self, options):
        self.options = options

    def tools(self):
        return None  # its results are the reader's explore responses (explore_tool)

    def explore_tool(self) -> str:
        return self.options.tool

    def cuts(self, given, ruleset, memo: dict):
        options = self.options
        join = options.block_separator.join
        responses = given.responses
        cuts = shared_cuts(memo).cut_all([join(r.blocks) for r in responses], options)
        name, trailing_block = self.name, options.trailing_block
        return [Pulled(Fixed(cut, trailing_block), r.origin, name, i) for i, (cut, r) in enumerate(zip(cuts, responses))], ()


@hookimpl
def citeledger_register_sources(register):
    register(CodegraphExplore)
