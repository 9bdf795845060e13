"""The quote channel: the answer quotes code that a returned section shipped.

Each line of a fenced block, and each inline code span, is whitespace-normalised;
one at least `min_length` long that occurs inside a shipped source line (also
normalised) credits that line's file, and with `line_level` those lines. The
match is a substring match because inline spans quote fragments of a line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict

import attrs

from citeledger.core import Envelope, Finding, bounded, hookimpl, needs_groups, shipped_lines, shipped_numbers, utf16_len

from .lines import normalise_code, window


MAX_CONTEXT = 1000
_UNREAD = object()
# A fence line starts with its indent of spaces and tabs, so none of these may be a fence character.
NOT_FENCE = " \t\n"


def _fence_chars(instance, attribute, chars: tuple) -> None:
    for c in chars:
        if len(c) != 1 or c in NOT_FENCE:
            raise ValueError(f"{attribute.name} items must be single characters other than space, tab or newline, not {c!r}")
    if len(set(chars)) != len(chars):
        raise ValueError(f"{attribute.name} lists a character twice")


@attrs.frozen
class FencedBlock:
    """A fenced block of an answer: its span (opening line start to closing
    line end, the newline after it excluded) and its body, every line between."""

    start: int
    end: int
    code: str


def fenced_blocks(text: str, chars, minimum: int) -> list[FencedBlock]:
    r"""The fenced blocks of `text`, first to last, as Python's re finds
    `(?ms)^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<code>.*?)^[ \t]*(?P=fence)[ \t]*$`
    (for `chars` "`" and "~", `minimum` 3) with finditer, in O(n log n).

    An opening line is an indent of spaces and tabs, a run of L >= `minimum`
    copies of one fence character, anything, and a newline. A closing line is
    an indent, a run of exactly k copies, then only spaces and tabs to the
    line's end. The regex tries k = L first and backs off one at a time, and
    for each k takes the first closing line after the opening one: so does
    this, with the closing lines indexed by (character, k). A block's closing
    line ends the search for the next opening line, as finditer resumes there.
    """
    chars = frozenset(chars)
    lines = text.split("\n")
    starts: list[int] = []
    openers: list[tuple[int, str, int]] = []  # (line index, character, run)
    closers: dict[tuple[str, int], list[int]] = defaultdict(list)  # line indices, ascending
    position = 0
    last = len(lines) - 1
    for index, line in enumerate(lines):
        starts.append(position)
        position += len(line) + 1
        body = line.lstrip(" \t")
        c = body[:1]
        if c not in chars:
            continue
        tail = body.lstrip(c)
        run = len(body) - len(tail)
        if run < minimum:
            continue
        if index < last:  # an opening line needs its newline
            openers.append((index, c, run))
        if not tail.strip(" \t"):
            closers[(c, run)].append(index)
    runs: dict[str, list[int]] = {c: [] for c in chars}  # the closing runs present, per character, ascending
    for c, k in sorted(closers):
        runs[c].append(k)
    blocks: list[FencedBlock] = []
    resume = -1  # the last block's closing line
    for index, c, run in openers:
        if index <= resume:
            continue
        present = runs[c]
        close = None
        for j in range(bisect_right(present, run) - 1, -1, -1):
            rows = closers[(c, present[j])]
            at = bisect_right(rows, index)
            if at < len(rows):
                close = rows[at]
                break
        if close is None:
            continue
        code_start, code_end = starts[index + 1], starts[close]
        blocks.append(FencedBlock(starts[index], code_end + len(lines[close]), text[code_start:code_end]))
        resume = close
    return blocks


def without_blocks(text: str, blocks: list[FencedBlock]) -> str:
    r"""`text` with each block replaced by a newline (re.sub of the fence regex by "\n")."""
    pieces, at = [], 0
    for block in blocks:
        pieces += [text[at:block.start], "\n"]
        at = block.end
    pieces.append(text[at:])
    return "".join(pieces)


@attrs.frozen
class QuoteOptions:
    # The characters a fence is a run of, and the shortest run that is a fence.
    # A block closes with a run of its opening character as long as the opening
    # run, else one shorter, and so on down to fence_min (fenced_blocks).
    fence_chars: tuple[str, ...] = attrs.field(validator=_fence_chars)
    fence_min: int = bounded(1, 1_000)
    # An inline code span; group 1 is its content.
    code_span: re.Pattern = attrs.field(validator=needs_groups(1))
    # A line-number prefix an answer may have copied with the code (`126\t`), removed first.
    line_number_prefix: re.Pattern
    # Normalised quotes shorter than this (UTF-16 units) are too generic (`}`, `return x`).
    min_length: int = bounded(1, 10_000)
    fenced: bool = True
    inline: bool = True
    # Lines credited either side of a quoted line, at most MAX_CONTEXT (each
    # quoted line's window is built as a set of line numbers).
    context: int = bounded(0, MAX_CONTEXT, default=0)
    # A quote found in this many files or more credits none of them; 0 turns it off.
    ambiguity_limit: int = bounded(0, 1_000_000, default=0)
    # false: a quote credits the whole file (file level only), no line numbers.
    line_level: bool = True
    # A bare (dotted) name such as `full_dispatch_request` is a symbol mention,
    # the symbol channel's business; false: a quote that is all `bare_name` is not a quote.
    bare_names: bool = True
    # What a bare (dotted) name is, matched against a whole normalised quote.
    bare_name: re.Pattern = attrs.field(kw_only=True)


class QuoteChannel:
    name = "quote"
    colour = "#9467bd"  # on every page that draws its credits (report.palette)
    Options = QuoteOptions

    def __init__(self, options: QuoteOptions):
        self.options = options
        self.line_level = options.line_level  # the accountant's line-aware switch

    def quotes(self, answer: str) -> list[str]:
        """Normalised quoted lines long enough to count, first-seen order."""
        opts = self.options
        raw: list[str] = []
        blocks = fenced_blocks(answer, opts.fence_chars, opts.fence_min)
        # Inline spans are looked for outside the fenced blocks only.
        rest = without_blocks(answer, blocks)
        if opts.fenced:
            for block in blocks:
                raw.extend(block.code.split("\n"))
        if opts.inline:
            raw.extend(m.group(1) for m in opts.code_span.finditer(rest))
        seen: dict[str, None] = {}
        for text in raw:
            q = normalise_code(opts.line_number_prefix.sub("", text, count=1))
            if utf16_len(q) < opts.min_length or not opts.bare_names and opts.bare_name.fullmatch(q):
                continue
            seen.setdefault(q, None)
        return list(seen)

    def judge(self, answer: str, envelope: Envelope) -> dict[str, Finding]:
        quotes = self.quotes(answer)
        credited: dict[str, set[int]] = defaultdict(set)
        evidence: dict[str, str] = {}
        misses: dict[str, tuple[str, str]] = {}
        limit = self.options.ambiguity_limit
        context = self.options.context
        sections = _Sections.of(envelope) if quotes else None
        for q in quotes:
            hits = sections.hits(q)
            if limit and len(hits) >= limit:
                for path in hits:
                    misses.setdefault(path, (q, f"quote `{_short(q)}` occurs in {len(hits)} files, ambiguity cutoff (limit {limit})"))
                continue
            for path, numbers in hits.items():
                # The hits are shipped lines of the path, so without context the
                # window holds only shipped lines: no need to read them all.
                lines = window(numbers, context)
                credited[path] |= lines & sections.shipped(path) if context else lines
                evidence.setdefault(path, q)
        findings = {}
        for path in envelope.paths:
            if path in credited:
                lines = frozenset(credited[path])
                findings[path] = Finding(
                    self.name, True, _short(evidence[path]),
                    f"quote `{_short(evidence[path])}`: {len(lines)} shipped line(s) quoted or around a quote",
                    lines if self.line_level else None,
                )
            elif path in misses:
                findings[path] = Finding(self.name, False, _short(misses[path][0]), misses[path][1])
            else:
                findings[path] = Finding(self.name, False, None, "no quoted code occurs in this file's sections")
        return findings


class _Sections:
    """The envelope's sections as quotes are looked for in them, read as far as a quote asks.

    A quote is normalised code: its pieces between single spaces are runs of
    the source's own characters, so a line whose normalised code holds the
    quote holds its longest piece verbatim. Only the lines where that piece
    stands are read (shipped_lines of the line alone: a numbered line is one
    line) and normalised; a section is not read whole. Kept in the envelope's
    memo: it depends on the sections alone, so every ruleset scoring them
    shares it.
    """

    __slots__ = ("sections", "_lines", "_shipped")

    def __init__(self, envelope: Envelope):
        self.sections = tuple(envelope.sections())
        # (section index, line start) -> (number, normalised code), None when not a shipped line
        self._lines: dict[tuple[int, int], tuple[int, str] | None] = {}
        self._shipped: dict[str, set[int]] = {}

    @classmethod
    def of(cls, envelope: Envelope) -> "_Sections":
        found = envelope.memo.get(("quote", "sections"))
        if found is None:
            found = envelope.memo[("quote", "sections")] = cls(envelope)
        return found

    def hits(self, q: str) -> dict[str, set[int]]:
        """path -> the numbers of its shipped lines whose normalised code holds `q`, in section order."""
        piece = max(q.split(" "), key=len)  # holds no newline: the quote has none
        hits: dict[str, set[int]] = {}
        known = self._lines
        for i, section in enumerate(self.sections):
            text = section.text
            at = text.find(piece)
            while at >= 0:
                start = text.rfind("\n", 0, at) + 1
                end = text.find("\n", at)
                if end < 0:
                    end = len(text)
                key = (i, start)
                line = known.get(key, _UNREAD)
                if line is _UNREAD:
                    found = shipped_lines(text[start:end])
                    line = known[key] = (found[0].number, normalise_code(found[0].code)) if found else None
                if line is not None and q in line[1]:
                    hits.setdefault(section.path, set()).add(line[0])
                at = text.find(piece, end)  # the next line that holds it
        return hits

    def shipped(self, path: str) -> set[int]:
        """The numbers of every shipped line of `path`'s sections."""
        found = self._shipped.get(path)
        if found is None:
            found = self._shipped[path] = set()
            for s in self.sections:
                if s.path == path:
                    found |= shipped_numbers(s.text)
        return found


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@hookimpl
def citeledger_register_channels(register):
    register(QuoteChannel)
