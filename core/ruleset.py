"""A ruleset: every constant and guard the accountant and its channels use.

The values live in YAML (citeledger.rulesets); these classes are their shape.
Field docstrings double as the schema reference (docs/rulesets.md).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Optional

import attrs

from citeledger.core import ReadOptions, bounded, field_range, make_sources, needs_groups

# Hashes are cached: scoring keys its shared work by these records' values
# (core.accountant stages), once per transcript.
frozen = functools.partial(attrs.frozen, cache_hash=True)


def one_of(*choices):
    return attrs.validators.in_(choices)


# Every integer a ruleset may give has its range on its field (core.bounded;
# docs/robustness.md lists them). The loader checks it before building
# anything, so a value past it is one error naming the key and its range.
# Why each bound: a line is held in memory up to max_line_bytes; a context of
# c credits 2c + 1 lines per quoted or cited line; lengths, fence runs and
# ambiguity limits only compare, bounded so no number reaches a native argument.


# No field has a default: every value comes from the YAML (default.yaml holds
# the reference's).


@frozen
class ReaderRules:
    # Substring of the tool name whose results are explore responses.
    explore_tool: str
    # Joined between a tool_result's content items (the reference: nothing).
    block_separator: str
    # A line starting with a UTF-8 byte order mark: the reference's JSON.parse
    # fails on it ("unreadable"); "strip" reads it.
    bom: str = attrs.field(validator=one_of("unreadable", "strip"))
    # Final answer when there is no `result` event: the last main-thread text
    # event ("last-text-event", the reference) or, per turn, every text after
    # the turn's last tool call ("final-turn-text").
    answer: str = attrs.field(validator=one_of("last-text-event", "final-turn-text"))
    # Lines longer than this are skipped with a warning, never held in memory.
    max_line_bytes: int = bounded(1, 1 << 30)  # 1 GiB

    def read_options(self) -> ReadOptions:
        return ReadOptions(self.explore_tool, self.max_line_bytes)


@frozen
class SplitterRules:
    # A section header line; group 1 the path, group 2 the suffix. Python re
    # syntax written to behave as the reference's JavaScript /^...$/m.
    header: re.Pattern = attrs.field(validator=needs_groups(2))
    # The last section ends at the first occurrence of this after its header.
    trailer: str
    # What follows the last section's code block: charged to the last file
    # ("last-file", the reference) or to a meta bucket charged to no file.
    trailing_block: str = attrs.field(validator=one_of("last-file", "meta"))
    # Unit sections are counted in: utf16 (JavaScript length), codepoint, utf8.
    unit: str = attrs.field(validator=one_of("utf16", "codepoint", "utf8"))


@frozen
class ChannelRule:
    """One enabled channel: its name, rank (position) and validated options."""

    name: str
    options: Any


@frozen
class SourceRule:
    """One counted envelope source (core/source.py): its name and validated options."""

    name: str
    options: Any


@frozen
class Ruleset:
    name: str
    description: str
    reader: ReaderRules
    splitter: SplitterRules
    channels: tuple[ChannelRule, ...]  # in rank order; the first is the lower bound
    source: str = ""  # the file it was loaded from
    # Every channel's options, enabled or not (for explanations and variation).
    channel_options: tuple[ChannelRule, ...] = ()
    # The envelope sources counted, in the order `sources.use` lists them.
    sources: tuple[SourceRule, ...] = ()

    def read_options(self) -> ReadOptions:
        """How a transcript is read for this ruleset: its reader's options, keeping
        the results of the tools its sources read."""
        from citeledger.core import read_options, sources

        return read_options(self.reader, make_sources(self.sources, sources()))

    @property
    def channel_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.channels)

    def options_for(self, name: str) -> Optional[Any]:
        for rule in self.channel_options:
            if rule.name == name:
                return rule.options
        return None


def integer_ranges(options_of: dict) -> dict[str, tuple[int, int]]:
    """Every int ruleset key (dotted) with its range, read from the fields that declare them.

    `options_of` maps a channel's name to its Options class (the installed channels).
    """
    found = {}
    for prefix, cls in (("reader", ReaderRules), ("splitter", SplitterRules),
                        *((f"channels.{name}", options) for name, options in sorted(options_of.items()))):
        for field in attrs.fields(cls):
            if field.type in (int, "int"):
                found[f"{prefix}.{field.name}"] = field_range(field)
    return found
