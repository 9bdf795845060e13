"""Where in the answer each crediting citation stands, found from the findings' evidence.

Channels report *what* credited a file (the evidence string: the cited path,
the symbol, the line citation, the quoted code), not where it stood; the page
finds it again by searching the answer. Rules (docs/decisions.md, issue 10):

- every occurrence of the evidence is a citation of the files it credited,
  as the channel finds it in the answer (its `evidence_spans`, through the
  registry; the default is core.channel.find_evidence: white space inside the
  evidence matches any run of white space, a trailing "…" matches its
  prefix, a word-character end matches only beside no word character). The
  symbol channel, say, counts a symbol where it stands in backticks, when it
  stands in any;
- overlapping occurrences are merged into one span that links every file they
  credit; an evidence not found leaves the answer unmarked (the file's row
  still shows it).
"""

from __future__ import annotations

from typing import Iterable

import attrs

from citeledger.report.evidence import evidence_spans


@attrs.frozen
class Span:
    start: int
    end: int
    files: tuple[int, ...]  # indexes of the credited files, in the files table's order


def occurrences(answer: str, channel: str, evidence: str) -> list[tuple[int, int]]:
    if not evidence or not evidence.strip().rstrip("…").strip():
        return []
    return evidence_spans(channel, answer, evidence)


def citation_spans(answer: str, credits: Iterable[tuple[int, str, str]]) -> list[Span]:
    """Non-overlapping spans, in answer order, from (file index, channel, evidence) of credited files."""
    raw: list[tuple[int, int, int]] = []
    cache: dict[tuple[str, str], list] = {}
    for index, channel, evidence in credits:
        key = (channel, evidence)
        if key not in cache:
            cache[key] = occurrences(answer, channel, evidence)
        raw.extend((a, b, index) for a, b in cache[key])
    raw.sort()
    merged: list[list] = []
    for a, b, index in raw:
        if merged and a < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], b)
            if index not in last[2]:
                last[2].append(index)
        else:
            merged.append([a, b, [index]])
    return [Span(a, b, tuple(sorted(files))) for a, b, files in merged]
