"""Where in the answer each crediting citation stands, found from the findings' evidence.

Channels report *what* credited a file (the evidence string: the cited path,
the symbol, the line citation, the quoted code), not where it stood; the page
finds it again by searching the answer. Rules (docs/decisions.md, issue 10):

- every occurrence of the evidence is a citation of the files it credited;
- white space inside the evidence matches any run of white space (a quote's
  evidence is whitespace-normalised), and a trailing "…" (a shortened quote)
  matches its prefix;
- an evidence that starts or ends with a word character matches only where the
  answer has no word character next to it (`utils.js` is not found in
  `myutils.jsx`);
- a symbol counts where it stands in backticks, when it stands in any; else
  anywhere (a ruleset that reads prose symbols);
- overlapping occurrences are merged into one span that links every file they
  credit; an evidence not found leaves the answer unmarked (the file's row
  still shows it).
"""

from __future__ import annotations

import bisect
import re
from typing import Iterable

import attrs

_CODE_SPAN = re.compile(r"`[^`\n]+`")
_WORD = r"[A-Za-z0-9_$]"


@attrs.frozen
class Span:
    start: int
    end: int
    files: tuple[int, ...]  # indexes of the credited files, in the files table's order


def evidence_pattern(evidence: str) -> re.Pattern:
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


def occurrences(answer: str, channel: str, evidence: str) -> list[tuple[int, int]]:
    if not evidence or not evidence.strip().rstrip("…").strip():
        return []
    found = [m.span() for m in evidence_pattern(evidence).finditer(answer) if m.end() > m.start()]
    if channel == "symbol":
        spans = [m.span() for m in _CODE_SPAN.finditer(answer)]  # sorted, non-overlapping
        starts = [a for a, _ in spans]
        inside = []
        for f in found:  # the code span starting last before the occurrence is the only one that can hold it
            k = bisect.bisect_left(starts, f[0]) - 1
            if k >= 0 and f[1] < spans[k][1]:
                inside.append(f)
        if inside:
            return inside
    return found


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
