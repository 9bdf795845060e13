"""One session assembled once: read, scored and analysed as a request asks, for every face.

`assemble(request)` is what `citeledger score`, `citeledger explain` and
`citeledger.score()` each run: the command line parses its arguments into a
`SessionRequest`, the library takes keyword arguments into the same record,
and both get the same `SessionResult` (report/results.py), which a format
renders and whose `to_dict()` is the object `score --json` prints. What only
an option needs (the envelope view, sufficiency, the metrics) is imported when
the request asks for it: a plain score starts without those modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import attrs

from citeledger.core import Ruleset, score
from citeledger.engine.measures import measured
from citeledger.engine.reading import files_added, read_session

if TYPE_CHECKING:  # imported by `assemble`: `measured` alone (score --harness) needs no result record
    from citeledger.report.results import SessionResult


@attrs.frozen(kw_only=True)
class SessionRequest:
    """What to read of one session and what to lay beside its score."""

    ruleset: Ruleset
    files: tuple[str, ...] = ()  # files of one session (any one is enough: the rest is read with it)
    session: Optional[str] = None  # an interactive log or its project folder (`--session`, `session=`)
    kind: str = "score"  # "score" or "explain": which block a format renders
    sufficiency: bool = False  # the reference's sufficiency block (`--sufficiency`)
    next_acts: bool = False  # each explore call's next act, for the session page (`--html`)
    answer_globs: Optional[tuple[str, ...]] = None  # the envelope view (`--envelope`: (); `--answer GLOB`)
    metrics: bool = False  # every metric plugin's record (score's JSON and page)
    window_tokens: Optional[int] = None  # occupancy's window; None: CG_WINDOW_TOKENS, else 200,000


def assemble(request: SessionRequest) -> SessionResult:
    """Read the session the request names, score it under its ruleset and add what it asks for.

    Raises `UserError`/`InputError` where the command line exits 2 (a bad glob, an unreadable
    file, files of several sessions), with the same one line.
    """
    from citeledger.report.results import SessionResult

    matchers = _globs(request.answer_globs)  # a bad glob refused before anything is read
    transcript = read_session(list(request.files), request.session, request.ruleset, whole=True)
    scored = score(transcript, request.ruleset)
    added = tuple(files_added(transcript, request.files))
    judged = _sufficiency(transcript, request) if request.sufficiency or request.next_acts else None
    return SessionResult(
        kind=request.kind, score=scored, added=added,
        json_added=tuple(transcript.files[1:]) if request.session and request.kind == "score" else added,
        session_path=transcript.files[0] if request.session and request.kind == "score" else None,
        view=_view(scored, request.answer_globs, matchers),
        sufficiency=judged if request.sufficiency else None,
        retrieval_next=_retrieval_next(transcript, scored, request) if request.sufficiency else None,
        next_acts=judged if request.next_acts else None,
        transcript=transcript,
        reads=_reads(transcript, scored, request.ruleset),
        metrics=measured(transcript, request.window_tokens) if request.metrics else {},
    )


def _globs(globs):
    if not globs:
        return None
    from citeledger.report.envelope import compile_globs

    return compile_globs(list(globs))


def _view(scored, globs, matchers):
    if globs is None:
        return None
    from citeledger.report.envelope import envelope_view

    return envelope_view(scored, list(globs), matchers)


def _sufficiency(transcript, request: SessionRequest):
    from citeledger.harness.sufficiency import sufficiency

    return sufficiency(transcript, request.ruleset.explore_tool)


def _retrieval_next(transcript, scored, request: SessionRequest):
    """What the agent did next after each call of every other source than explore (None: none)."""
    from citeledger.harness.next_acts import next_acts

    return next_acts(transcript, scored)


def _reads(transcript, scored, ruleset):
    """The reads placed after each call, when a ranked channel places them (read_after), else None."""
    from citeledger.report.reads import call_reads

    return call_reads(transcript, scored, ruleset)
