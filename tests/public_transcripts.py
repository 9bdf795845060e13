"""The real transcripts of ../shared/transcripts (sets A, B and C), read in place.

Every fact these tests check was read by hand in the set's RESULTS.md or FACTS.md;
the files are never copied into the project. A test that needs them skips where
the folder is absent (CI has it beside the checkout).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "transcripts"


def public(*parts: str) -> Path:
    """A file or folder of ../shared/transcripts; the test skips where it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip("../shared/transcripts is absent")
    return path


@lru_cache(maxsize=None)
def scored(relative: str, ruleset: str = "retrieval"):
    """The SessionScore of one real file (`set/folder/file`) under a shipped ruleset."""
    import citeledger

    return citeledger.score(public(*relative.split("/")), ruleset).score


@lru_cache(maxsize=None)
def swept(relative: str, ruleset: str = "retrieval") -> tuple:
    """The sweep's session records of one real folder or file, in this process."""
    import citeledger

    return tuple(citeledger.sweep([public(*relative.split("/"))], (ruleset,), jobs=1))


def calls_by_source(score) -> dict:
    return {s.name: len(s.calls) for s in score.sources if s.calls}


def files(score) -> dict:
    return {f.path: f.chars for f in score.files}
