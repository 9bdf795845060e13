"""What a channel is and what it reports."""

from __future__ import annotations

from typing import ClassVar, Mapping, Optional, Protocol

import attrs

from citeledger.core.sections import Call
from citeledger.core.transcript import ToolResponse, ToolUse, pickle_by_fields


@pickle_by_fields
@attrs.frozen
class Finding:
    """One channel's conclusion about one returned file.

    `evidence` is the citation or symbol that credited the file (or, for a
    file not credited, the nearest miss); `reason` says which rule decided.
    """

    channel: str
    credited: bool
    evidence: Optional[str]
    reason: str
    # Line-aware channels (line_range, quote) name the file's source lines
    # they credit, by line number; None is a whole-file statement.
    lines: Optional[frozenset] = None


@attrs.frozen
class Envelope:
    """Everything one session's explore calls returned."""

    calls: tuple[Call, ...]
    paths: tuple[str, ...]  # distinct file paths, first-seen order
    # Work channels derive from the envelope (owner tables, citations of an
    # answer) and share across the rulesets that score it: parse once, score
    # many. Keys start with the channel's name.
    memo: dict = attrs.field(factory=dict, eq=False, repr=False)
    # What else the session did, for channels that look past the answer
    # (read_after): every tool_use of the transcript, in reading order, and
    # the explore responses the calls were cut from (a call's `origin` is its
    # response's), with their thread and position.
    tool_uses: tuple[ToolUse, ...] = attrs.field(default=(), eq=False, repr=False)
    responses: tuple[ToolResponse, ...] = attrs.field(default=(), eq=False, repr=False)

    def sections(self):
        for call in self.calls:
            for section in call.sections:
                if not section.meta:
                    yield section


class Channel(Protocol):
    """A citation channel. Instances are built once per ruleset."""

    name: ClassVar[str]
    Options: ClassVar[type]  # an attrs class: the keys a ruleset may set

    def __init__(self, options) -> None: ...

    def judge(self, answer: str, envelope: Envelope) -> Mapping[str, Finding]:
        """A Finding for every path in `envelope.paths`."""
