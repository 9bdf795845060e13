"""Helpers the built-in readers share."""

from __future__ import annotations

import os
import json
from typing import Sequence

import orjson

from citeledger.core import COMMENTARY, ResultText, is_blank


def session_name(paths: Sequence[str]) -> str:
    """A session's name: its first file's, without .jsonl."""
    return os.path.basename(paths[0]).removesuffix(".jsonl") if paths else ""



def final_answers(texts) -> tuple:
    """Each turn's last non-blank assistant text, in turn order, as `ResultText`s.

    For formats whose turns end with the agent's message (Codex rollouts,
    Gemini CLI sessions): `texts` holds (turn, text, origin) in reading order.
    """
    last: dict = {}
    for turn, text, origin in texts:
        if not is_blank(text):
            last[turn] = ResultText(text, origin, turn)
    return tuple(last[t] for t in sorted(last))


QUOTE_CHARS = 80  # of a value quoted in a warning: an id can be megabytes long


def quoted(value) -> str:
    """`value` as a warning quotes it: its repr, cut to QUOTE_CHARS characters."""
    size = len(value) if isinstance(value, str) else None
    text = repr(value[:QUOTE_CHARS + 1] if size is not None else value)
    if len(text) <= QUOTE_CHARS and (size is None or size <= QUOTE_CHARS):
        return text
    return f"{text[:QUOTE_CHARS]}... ({size if size is not None else len(text):,} characters)"


def phased_answers(texts) -> tuple:
    """Each turn's answer, in turn order, as `ResultText`s, from (turn, text, origin, phase).

    A turn whose messages are marked `final_answer` (Codex CLI's `phase`) answers
    with those (non-blank) messages. A turn without one answers with its last
    non-blank message: the model's answer in a rollout written before phases, a
    progress note (kind COMMENTARY, which `answer.never: [commentary]` drops) when
    the message is marked `phase: commentary` (a turn cut before its answer).
    """
    answers: dict = {}
    finals: set = set()
    for turn, text, origin, phase in texts:
        if is_blank(text):
            continue
        if phase == "final_answer":
            if turn not in finals:
                answers[turn] = []
                finals.add(turn)
            answers[turn].append(ResultText(text, origin, turn))
        elif turn not in finals:
            answers[turn] = [ResultText(text, origin, turn, COMMENTARY if phase == "commentary" else "")]
    return tuple(r for t in sorted(answers) for r in answers[t])


class IdLines:
    """Line numbers of message ids in a JSON document, found in document order.

    An id is looked for as the writer writes it (orjson's bytes) and as
    `json.dump` with ensure_ascii writes it (escapes: a lone surrogate has no
    other form). One that is found in neither form (another escaping) ends the
    search: every later message gets line 0, so the document is scanned once.
    """

    def __init__(self, data: bytes):
        self.data = data
        self.cursor = 0
        self.line = 1
        self.lost = False

    def of(self, key: str) -> int:
        if self.lost:
            return 0
        at = -1
        for form in _written_forms(key):
            at = self.data.find(form, self.cursor)
            if at != -1:
                break
        if at == -1:
            self.lost = True
            return 0
        self.line += self.data.count(b"\n", self.cursor, at)
        self.cursor = at
        return self.line


def _written_forms(key: str) -> list[bytes]:
    forms = []
    try:
        forms.append(orjson.dumps(key))
    except TypeError:  # a lone surrogate: not UTF-8
        pass
    escaped = json.dumps(key).encode("ascii")
    if escaped not in forms:
        forms.append(escaped)
    return forms
