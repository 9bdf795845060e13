"""The quote channel: the answer quotes code that a returned section shipped.

Each line of a fenced block, and each inline code span, is whitespace-normalised;
one at least `min_length` long that occurs inside a shipped source line (also
normalised) credits that line's file, and with `line_level` those lines. The
match is a substring match because inline spans quote fragments of a line.
"""

from __future__ import annotations

import re
from collections import defaultdict

import attrs

from citeledger.core import Envelope, Finding, bounded, hookimpl, needs_groups, shipped_lines, utf16_len

from .lines import normalise_code, window


MAX_CONTEXT = 1000


def _has_code_group(instance, attribute, pattern: re.Pattern) -> None:
    if "code" not in pattern.groupindex:
        raise ValueError(f"{attribute.name} needs a named group `code` (the block's body)")


@attrs.frozen
class QuoteOptions:
    # A fenced code block; the named group `code` is its body.
    fenced_block: re.Pattern = attrs.field(validator=_has_code_group)
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
        rest = answer
        blocks = list(opts.fenced_block.finditer(answer))
        if blocks:
            # Inline spans are looked for outside the fenced blocks only.
            rest = opts.fenced_block.sub("\n", answer)
        if opts.fenced:
            for m in blocks:
                raw.extend((m.group("code") or "").split("\n"))
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
        index: list[tuple[str, int, str]] = []  # (path, number, normalised code)
        shipped: dict[str, set[int]] = defaultdict(set)
        for section in envelope.sections():
            for line in shipped_lines(section.text):
                shipped[section.path].add(line.number)
                index.append((section.path, line.number, normalise_code(line.code)))
        credited: dict[str, set[int]] = defaultdict(set)
        evidence: dict[str, str] = {}
        misses: dict[str, tuple[str, str]] = {}
        limit = self.options.ambiguity_limit
        for q in quotes:
            hits: dict[str, set[int]] = defaultdict(set)
            for path, number, code in index:
                if q in code:
                    hits[path].add(number)
            if limit and len(hits) >= limit:
                for path in hits:
                    misses.setdefault(path, (q, f"quote `{_short(q)}` occurs in {len(hits)} files, ambiguity cutoff (limit {limit})"))
                continue
            for path, numbers in hits.items():
                credited[path] |= window(numbers, self.options.context) & shipped[path]
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


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@hookimpl
def citeledger_register_channels(register):
    register(QuoteChannel)
