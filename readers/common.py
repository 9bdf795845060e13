"""Helpers the built-in readers share."""

from __future__ import annotations

import os
from typing import Sequence

from citeledger.core import ResultText, is_blank


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
            last[turn] = ResultText(text, origin)
    return tuple(last[t] for t in sorted(last))
