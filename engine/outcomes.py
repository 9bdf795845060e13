"""What a corpus outcome read: the files a session was scored from, and the ones read beyond
those the user named (the partial-session rule)."""

from __future__ import annotations

import os


def completed_files(sessions, given) -> list[str]:
    """Files read with a file given by name (the rest of its session, subagents included).

    `sessions`: (root it was found under, files read) per session.
    """
    named = {os.path.normpath(g) for g in given}
    return [f for root, files in sessions if os.path.normpath(root) in named and os.path.isfile(root)
            for f in files if os.path.normpath(f) not in named]


def outcome_inputs(outcome) -> tuple:
    """(root, every file read) of a scored corpus outcome."""
    read = next((s.inputs for s in outcome.scores if s is not None), outcome.ref.files)
    return outcome.ref.root, tuple(read)
