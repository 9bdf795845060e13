"""The line-range channel: the answer names lines of a file (`lib/response.js:126-220`).

A citation credits the shipped lines of the named file that fall in the range,
widened by `context` lines either side. Lines the explore call did not ship
(outside its sections, or elided behind a gap marker) are not credited: a
range wholly outside what was shipped credits nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict

import attrs

from citeledger.core import Envelope, Finding, bounded, hookimpl, shipped_numbers

from .lines import line_number, names_file

GROUPS = ("path", "start", "end")


def _has_groups(instance, attribute, pattern: re.Pattern) -> None:
    missing = [g for g in GROUPS if g not in pattern.groupindex]
    if missing:
        raise ValueError(f"{attribute.name} needs the named groups {', '.join(GROUPS)} (missing: {', '.join(missing)})")


@attrs.frozen
class LineRangeOptions:
    # `path:126-220`, `path:134`, `path#L126-L140`, `path, lines 126-140`.
    # Named groups: path, start, end (end may not take part).
    path_first: re.Pattern = attrs.field(validator=_has_groups)
    # `lines 126-140 of response.js`, `line 134 in lib/response.js`.
    lines_first: re.Pattern = attrs.field(validator=_has_groups)
    # Lines credited either side of a cited range (the reader's surroundings).
    context: int = bounded(0, 1_000, default=0)
    # A cited path that names several returned files (a bare `app.py:12` with
    # two app.py shipped): "all" credits each, "none" credits none of them.
    ambiguous: str = attrs.field(default="all", validator=attrs.validators.in_(("all", "none")))
    # false: a range credits the whole file (file level only), no line numbers.
    line_level: bool = True


@attrs.frozen
class RangeCitation:
    text: str  # as written in the answer
    path: str
    start: int
    end: int  # inclusive, >= start


class LineRangeChannel:
    name = "line_range"
    colour = "#e377c2"  # on every page that draws its credits (report.palette)
    Options = LineRangeOptions

    def __init__(self, options: LineRangeOptions):
        self.options = options
        self.line_level = options.line_level  # the accountant's line-aware switch

    def citations(self, answer: str) -> list[RangeCitation]:
        """Every range citation, in order of appearance.

        A match whose start or end is not a line number (more than
        core.MAX_DIGITS digits) cites nothing.
        """
        found = []
        for pattern in (self.options.path_first, self.options.lines_first):
            for m in pattern.finditer(answer):
                start = line_number(m.group("start") or "")
                end = line_number(m.group("end")) if m.group("end") else start
                if start is None or end is None:  # a digit run too long to be a line number
                    continue
                found.append((m.start(), RangeCitation(m.group(), m.group("path"), min(start, end), max(start, end))))
        return [c for _, c in sorted(found, key=lambda pc: pc[0])]

    def judge(self, answer: str, envelope: Envelope) -> dict[str, Finding]:
        # The shipped lines of the files some citation names, read when first named
        # (most returned files are named by none); they depend on the sections
        # alone, so the rulesets scoring them share them.
        shipped = envelope.memo.get(("line_range", "shipped"))
        if shipped is None:
            shipped = envelope.memo[("line_range", "shipped")] = _Shipped(envelope)
        ctx = self.options.context
        credited: dict[str, set[int]] = defaultdict(set)
        evidence: dict[str, str] = {}
        misses: dict[str, tuple[str, str]] = {}
        for cite in self.citations(answer):
            targets = [p for p in envelope.paths if names_file(cite.path, p)]
            if len(targets) > 1 and self.options.ambiguous == "none":
                for p in targets:
                    misses.setdefault(p, (cite.text, f"`{cite.text}` names {len(targets)} returned files"))
                continue
            for p in targets:
                got = {n for n in shipped[p] if cite.start - ctx <= n <= cite.end + ctx}
                if got:
                    credited[p] |= got
                    evidence.setdefault(p, cite.text)
                else:
                    misses.setdefault(p, (cite.text, f"`{cite.text}`: none of those lines was shipped"))
        findings = {}
        for path in envelope.paths:
            if path in credited:
                lines = frozenset(credited[path])
                findings[path] = Finding(
                    self.name, True, evidence[path],
                    f"lines `{evidence[path]}`: {len(lines)} shipped line(s) credited",
                    lines if self.line_level else None,
                )
            elif path in misses:
                findings[path] = Finding(self.name, False, misses[path][0], misses[path][1])
            else:
                findings[path] = Finding(self.name, False, None, "no line citation names this file")
        return findings


class _Shipped(dict):
    """path -> the numbers of the shipped lines of its sections, each made when first asked for."""

    def __init__(self, envelope: Envelope):
        super().__init__()
        self._envelope = envelope

    def __missing__(self, path: str) -> set[int]:
        found = self[path] = set()
        for s in self._envelope.sections():
            if s.path == path:
                found |= shipped_numbers(s.text)
        return found


@hookimpl
def citeledger_register_channels(register):
    register(LineRangeChannel)
