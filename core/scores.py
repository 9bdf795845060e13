"""Records of a scored session (what renderers and statistics consume)."""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.core.transcript import InputWarning, Whereabouts, pickle_by_fields

frozen = attrs.frozen


def ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


@pickle_by_fields
@frozen
class Verdict:
    """Why one file was or was not credited: every channel's finding, in rank order."""

    path: str
    channel: Optional[str]  # the crediting channel, None when not credited
    evidence: Optional[str]
    findings: tuple  # channels.base.Finding, one per ranked channel

    @property
    def credited(self) -> bool:
        return self.channel is not None


@pickle_by_fields
@frozen
class CallScore:
    number: int
    envelope: int
    used: int
    used_by_rank: tuple[int, ...]  # chars credited by each ranked channel
    sections: int
    sections_used: int
    files: tuple[tuple[str, int], ...]  # (path, chars) per section, in order
    origin_file: str = ""
    origin_line: int = 0
    # Line level (when a ruleset turns a line-aware channel on; docs/line-level.md):
    # chars of credited source lines, and of lines a line-aware channel pinned.
    line_used: int = 0
    line_pinned: int = 0

    @property
    def efficiency(self) -> float:
        return ratio(self.used, self.envelope)

    @property
    def line_efficiency(self) -> float:
        return ratio(self.line_used, self.envelope)


@pickle_by_fields
@frozen
class SourceScore:
    """What one envelope source's calls add up to (a ruleset counting several sources)."""

    name: str
    calls: tuple[int, ...]  # the numbers of its calls
    envelope: int
    used: int

    @property
    def efficiency(self) -> float:
        return ratio(self.used, self.envelope)


@frozen
class FileScore:
    path: str
    chars: int  # pooled: every return of the file is charged
    calls: int  # how many sections returned it
    verdict: Verdict
    line_used: int = 0  # pooled chars of its credited source lines (line level)


@pickle_by_fields
@frozen
class SessionScore:
    name: str
    ruleset: str
    channels: tuple[str, ...]  # rank order
    inputs: tuple[str, ...]
    calls: tuple[CallScore, ...]
    files: tuple[FileScore, ...]  # pooled chars descending, stable
    envelope: int
    used: int
    used_by_rank: tuple[int, ...]
    meta_chars: int
    answer: str
    has_answer: bool
    answer_source: str  # "result", "text-event", "final-turn-text", "turns" (answer.scope: turn) or "none"
    warnings: tuple[InputWarning, ...]
    # Line level: set when some ranked channel is line-aware (docs/line-level.md).
    line_level: bool = False
    line_used: int = 0
    line_pinned: int = 0
    # Explore responses read (spec section 1), with or without a section:
    # the envelope view's "over N response(s)".
    responses: int = 0
    # queries[i] is calls[i]'s explore query (None: its tool_use had none).
    queries: tuple[Optional[str], ...] = ()
    # Per source, in the ruleset's order, when it counts more than one (else empty).
    sources: tuple[SourceScore, ...] = ()
    # The ruleset's sources by name, in its order (what a "no response" reason names).
    source_names: tuple[str, ...] = ()
    # The files whose written text the answer judged holds (the ruleset's answer.written; core/answers.py);
    # None when the ruleset adds none (the final message alone is judged).
    answer_written: Optional[tuple[str, ...]] = None
    unit: str = "utf16"  # what a section's size counts (the ruleset's unit; core/sections/units.py)
    # When, where and by which agent the session ran (its transcript's; score --json's started, model,
    # project, agent after the session's name).
    whereabouts: Whereabouts = Whereabouts()
    # The calls as cut (core.Call: their Sections), calls[i] scoring cut[i]: what a report lays
    # beside the scores (the diagnostic join, the reads after calls) without cutting again.
    cut: tuple = attrs.field(default=(), eq=False, repr=False)

    @property
    def line_efficiency(self) -> float:
        """Share of the envelope on credited source lines (a whole-file credit credits all its lines)."""
        return ratio(self.line_used, self.envelope)

    @property
    def line_pinned_efficiency(self) -> float:
        """Share of the envelope on lines a line-aware channel named (no whole-file credit)."""
        return ratio(self.line_pinned, self.envelope)

    @property
    def efficiency(self) -> float:
        return ratio(self.used, self.envelope)

    @property
    def lower_bound(self) -> float:
        """The first-ranked channel alone: the conservative floor."""
        return ratio(self.used_by_rank[0] if self.used_by_rank else 0, self.envelope)

    @property
    def ladder(self) -> tuple[tuple[str, float], ...]:
        """Cumulative efficiency as channels are added in rank order."""
        out, total = [], 0
        for name, chars in zip(self.channels, self.used_by_rank):
            total += chars
            out.append((name, ratio(total, self.envelope)))
        return tuple(out)

    @property
    def files_used(self) -> int:
        return sum(1 for f in self.files if f.verdict.credited)

    @property
    def status(self) -> str:
        """scored, no-explore (no call had a file section: meta alone is no envelope) or no-answer."""
        if not self.calls or not self.files:
            return "no-explore"
        if not self.has_answer:
            return "no-answer"
        return "scored"
