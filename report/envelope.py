"""The envelope view: each file's share, and a hand-given answer set's share."""

from __future__ import annotations

import re

import attrs

from citeledger.core import compile_linear
from citeledger.core.scores import SessionScore, ratio


def glob_pattern(glob: str) -> re.Pattern:
    """`**` matches anything, `*` anything but "/", the rest literally; anchored."""
    parts = re.split(r"(\*\*|\*)", glob)
    body = "".join(".*" if p == "**" else "[^/]*" if p == "*" else re.escape(p) for p in parts)
    # On RE2 (linear time): in re, `**a**a**a…b` against a long path backtracks
    # exponentially. RE2 runs every glob; re is the fallback should one not translate.
    return compile_linear(rf"\A{body}\Z", re.S, single=True) or re.compile(rf"\A{body}\Z", re.S)


@attrs.frozen
class AnswerSet:
    globs: tuple[str, ...]
    chars: int
    envelope: int
    members: tuple[str, ...]  # returned files the globs match

    @property
    def share(self) -> float:
        return ratio(self.chars, self.envelope)


def answer_set(score: SessionScore, globs) -> AnswerSet:
    patterns = [glob_pattern(g) for g in globs]
    members = tuple(f.path for f in score.files if any(p.match(f.path) for p in patterns))
    chars = sum(f.chars for f in score.files if f.path in members)
    return AnswerSet(tuple(globs), chars, score.envelope, members)
