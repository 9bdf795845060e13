"""The channel plugin API: what a channel is, what it is given and what it reports.

A channel is a class registered through `citeledger_register_channels`
(core/hookspecs.py) that declares the `Channel` protocol below. The accountant
builds one per distinct options value in a scoring call, gives it the final
answer and the `Envelope`, and holds its findings to the contract
(`check_findings`): one `Finding` for every returned path.
"""

from __future__ import annotations

import re
from typing import ClassVar, Mapping, Optional, Protocol

import attrs

from citeledger.core.errors import UserError
from citeledger.core.sections import Call
from citeledger.core.transcript import ToolResult, ToolUse, pickle_by_fields


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
    responses: tuple[ToolResult, ...] = attrs.field(default=(), eq=False, repr=False)
    # Work derived from the answer alone (its citations under a channel's
    # options), shared by every ruleset scoring the transcript whatever its
    # envelope: a key names the answer and every option the work reads.
    answers: dict = attrs.field(factory=dict, eq=False, repr=False)

    def sections(self):
        for call in self.calls:
            for section in call.sections:
                if not section.meta:
                    yield section


class Channel(Protocol):
    """A citation channel.

    - `name`: its ruleset key (`channels.<name>`) and the label of its credits.
    - `Options`: a frozen attrs class; its fields are the keys a ruleset may
      set under `channels.<name>`, validated by the ruleset loader, and part
      of every cache key of the channel's work.
    - `line_level`: True when its findings may name source lines (`lines`),
      which turns line-level accounting on (docs/line-level.md).
    - `judge(answer, envelope)`: a `Finding` for every path in
      `envelope.paths`, whose `channel` is `name`. Findings must not depend
      on section sizes (`Section.chars`): rulesets that differ only in their
      unit share them. Work derived from the envelope alone may be kept in
      `envelope.memo` under keys starting with `name`; work derived from the
      answer alone (its citations) in `envelope.answers`, under keys starting
      with `name` that hold the answer and every option it reads.
    """

    name: ClassVar[str]
    Options: ClassVar[type]
    line_level: ClassVar[bool] = False

    def __init__(self, options) -> None: ...

    def judge(self, answer: str, envelope: Envelope) -> Mapping[str, Finding]:
        """A Finding for every path in `envelope.paths`."""

    # Optional: how the channel's credits are shown. Reports call these
    # through the registry (report/evidence.py: evidence_label / evidence_spans);
    # a channel without them gets the defaults named.

    # The colour ("#rrggbb") every page draws the channel's credits in.
    # Default: one of report.palette's, by the channel's name.
    colour: ClassVar[str]

    @classmethod
    def evidence_label(cls, verdict) -> str:
        """The text block's label of a file this channel credited (`verdict.evidence`
        is the Finding's). Default: "<name> `<evidence>`"."""

    @classmethod
    def evidence_spans(cls, answer: str, evidence: str) -> list[tuple[int, int]]:
        """Where in the answer a credit's evidence stands: the HTML page's citation
        marks. Default: every occurrence, `find_evidence(answer, evidence)`."""


_WORD = r"[A-Za-z0-9_$]"


def evidence_pattern(evidence: str) -> re.Pattern:
    """The evidence as it may stand in an answer.

    White space inside it matches any run of white space (a quote's evidence
    is whitespace-normalised); a trailing "…" (a shortened quote) matches its
    prefix; an end that is a word character matches only where the answer has
    no word character next to it (`utils.js` is not found in `myutils.jsx`).
    """
    text = evidence.strip()
    shortened = text.endswith("…")
    if shortened:
        text = text[:-1].rstrip()
    body = r"\s+".join(re.escape(part) for part in text.split())
    if re.match(_WORD, text):
        body = rf"(?<!{_WORD})" + body
    if text and re.match(_WORD, text[-1]) and not shortened:
        body += rf"(?!{_WORD})"
    return re.compile(body)


def find_evidence(answer: str, evidence: str) -> list[tuple[int, int]]:
    """(start, end) of every non-empty occurrence of `evidence` in `answer` (evidence_pattern)."""
    return [m.span() for m in evidence_pattern(evidence).finditer(answer) if m.end() > m.start()]


class ChannelContractError(UserError):
    """A channel plugin that broke the contract above (one line naming the channel and file; exit 2)."""


def check_findings(channel, findings, paths) -> Mapping[str, Finding]:
    """`findings` if they keep the contract for `paths`; else ChannelContractError."""
    name = channel.name
    if not isinstance(findings, Mapping):
        raise ChannelContractError(
            f"channel plugin {name!r}: judge() returned {type(findings).__name__}, not a mapping of path to Finding"
        )
    line_level = getattr(channel, "line_level", False)
    get = findings.get
    for path in paths:
        finding = get(path)
        # The common case in exact types first (this runs for every returned file).
        if (
            finding.__class__ is Finding
            and finding.credited.__class__ is bool
            and finding.reason.__class__ is str
            and (finding.evidence is None or finding.evidence.__class__ is str)
            and finding.lines is None
        ):
            continue
        if finding is None:
            raise ChannelContractError(f"channel plugin {name!r}: no finding for returned file {path!r}")
        if not (
            isinstance(finding, Finding)
            and isinstance(finding.credited, bool)
            and isinstance(finding.reason, str)
            and (finding.evidence is None or isinstance(finding.evidence, str))
            and (finding.lines is None or (line_level and isinstance(finding.lines, frozenset)))
        ):
            raise ChannelContractError(f"channel plugin {name!r}: malformed finding for {path!r}: {finding!r:.200}")
    return findings
