"""A ruleset: every constant and guard the accountant and its channels use.

The values live in YAML (citeledger.rulesets); these classes are their shape.
Field docstrings double as the schema reference (docs/rulesets.md).
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import attrs

from citeledger.core import MEASURES, NOT_ANSWERS, ReadOptions, bounded, field_range, make_sources

UNITS = tuple(MEASURES)  # what a section's size may count (core/sections/units.py)

# Hashes are cached: scoring keys its shared work by these records' values
# (core.accountant stages), once per transcript.
frozen = functools.partial(attrs.frozen, cache_hash=True)


def as_tuple(values) -> tuple:
    """A field's converter to a tuple. A Python function: attrs reads a converter's signature,
    and a builtin's (`tuple`) costs an `ast` parse of its text signature at every start-up."""
    return tuple(values)


def one_of(*choices):
    return attrs.validators.in_(choices)


# Every integer a ruleset may give has its range on its field (core.bounded;
# docs/robustness.md lists them). The loader checks it before building
# anything, so a value past it is one error naming the key and its range.
# Why each bound: a line is held in memory up to max_line_bytes; a context of
# c credits 2c + 1 lines per quoted or cited line; lengths, fence runs and
# ambiguity limits only compare, bounded so no number reaches a native argument.


# No field has a default: every value comes from the YAML (default.yaml holds
# the reference's). A source's or channel's keys are its own Options'.
#
# Each field says in its metadata which scoring stages its value feeds
# (`feeds`): core.accountant builds every stage's key from the fields that
# declare it, so a new key is declared here, where it is defined.


def feeds(*stages: str, **metadata) -> dict:
    """A field's metadata naming the scoring stages its value feeds (core.accountant.BUILDS_ON)."""
    return {"stages": stages, **metadata}


@frozen
class ReaderRules:
    # A line starting with a UTF-8 byte order mark: the reference's JSON.parse
    # fails on it ("unreadable"); "strip" reads it.
    bom: str = attrs.field(validator=one_of("unreadable", "strip"), metadata=feeds("read", "cut"))
    # Final answer when there is no `result` event: the last main-thread text
    # event ("last-text-event", the reference) or, per turn, every text after
    # the turn's last tool call ("final-turn-text").
    answer: str = attrs.field(validator=one_of("last-text-event", "final-turn-text"), metadata=feeds("read"))
    # Lines longer than this are skipped with a warning, never held in memory.
    max_line_bytes: int = bounded(1, 1 << 30, metadata=feeds("transcript"))  # 1 GiB


@frozen
class AnswerRules:
    """What the answer judged is (core/answers.py): which text answers, over what scope, and
    what the agent wrote that joins it."""

    # "session": the whole session against one answer (the reference's rule: the
    # `result` events joined, else `reader.answer`'s text); "turn": each turn's
    # retrievals against that turn's answer (a multi-turn session judged turn by turn).
    scope: str = attrs.field(default="session", validator=one_of("session", "turn"), metadata=feeds("read"))
    # What never counts as an answer: "commentary" (a progress note: Codex's
    # `phase: commentary`), "api-error" (a message the host wrote itself: Claude
    # Code's `"model": "<synthetic>"` rate-limit banner).
    never: tuple[str, ...] = attrs.field(
        default=(), converter=as_tuple,
        validator=attrs.validators.deep_iterable(one_of(*NOT_ANSWERS)), metadata=feeds("read"))
    # Globs of the paths whose written text (Write, Edit) joins the answer; none: the final
    # message alone (the reference). With a "/": the whole path; else any component.
    written: tuple[str, ...] = attrs.field(default=(), metadata=feeds("read"))


@frozen
class ChannelRule:
    """One enabled channel: its name, rank (position) and validated options."""

    name: str = attrs.field(metadata=feeds("findings"))
    options: Any = attrs.field(metadata=feeds("findings"))


@frozen
class SourceRule:
    """One counted envelope source (core/source.py): its name and validated options."""

    name: str
    options: Any


@frozen
class Ruleset:
    name: str = attrs.field(metadata=feeds("label"))
    description: str = attrs.field(metadata=feeds("label"))
    reader: ReaderRules = attrs.field(metadata=feeds())  # its fields declare their own stages
    # What a section's char is, for every source: utf16 (JavaScript length), codepoint, utf8.
    unit: str = attrs.field(validator=one_of(*UNITS), metadata=feeds("envelope"))
    # In rank order; the first is the lower bound. Each rule's fields feed its
    # findings (`items`, the rule's class: channels[].name, channels[].options);
    # the ranked list, the verdicts and the files they decide.
    channels: tuple[ChannelRule, ...] = attrs.field(metadata=feeds("verdicts", "files", items=ChannelRule))
    source: str = attrs.field(default="", metadata=feeds("label"))  # the file it was loaded from
    # Every channel's options, enabled or not (for explanations and variation).
    channel_options: tuple[ChannelRule, ...] = attrs.field(default=(), metadata=feeds("label"))
    # The envelope sources counted, in the order `sources.use` lists them, with their
    # options: what the reader keeps, what is cut and how (core/source.py).
    sources: tuple[SourceRule, ...] = attrs.field(default=(), metadata=feeds("transcript", "cut"))
    # Which answer the retrievals are judged against (core/answers.py); its fields declare their own stages.
    answer: AnswerRules = attrs.field(factory=AnswerRules, metadata=feeds())

    def read_options(self) -> ReadOptions:
        """How a transcript is read for this ruleset: its line limit, the explore tool its
        sources name, the other tools they read."""
        from citeledger.core import read_options, sources

        return read_options(self.reader.max_line_bytes, make_sources(self.sources, sources()))

    @property
    def explore_tool(self) -> Optional[str]:
        """The tool whose results are this ruleset's explore calls (None: no source reads them)."""
        return self.read_options().explore_tool

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
    for prefix, cls in (("reader", ReaderRules),
                        *((f"channels.{name}", options) for name, options in sorted(options_of.items()))):
        for field in attrs.fields(cls):
            if field.type in (int, "int"):
                found[f"{prefix}.{field.name}"] = field_range(field)
    return found
