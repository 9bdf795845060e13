"""The envelope view: each file's share, and a hand-given answer set's share."""

from __future__ import annotations

import attrs

from citeledger.core import SessionScore, glob_pattern, ratio


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
