"""`score` and `explain` read ONE session: files of several sessions are refused, not merged.

Two files are of one session when their names say so (the reader's grouping:
`run-x.jsonl` and `run-x.t2.jsonl`, an interactive log and its subagents) or,
failing that, when both carry the same session id in their first event (the
segments of one session renamed by hand). Anything else is several sessions,
and pooling them would print one efficiency for runs that never shared a
context: a refusal (exit 2) with the hint to use `sweep`.
"""

from __future__ import annotations

from typing import Optional, Sequence

import orjson

from citeledger.core import open_regular
from citeledger.corpus import claim, reader_order
from citeledger.core.errors import UserError
from citeledger.core.plugins import readers
from citeledger.core.reader import session_of

LISTED = 4  # files named in the refusal; the rest counted


def session_id(path: str) -> Optional[str]:
    """The session id in the file's first line (stream-json `session_id`, an interactive log's
    `sessionId`, a Codex rollout's `session_meta` id), else None."""
    try:
        with open_regular(path) as fh:  # never waits on a FIFO
            first = orjson.loads(fh.readline(1 << 20))
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(first, dict):
        return None
    found = first.get("session_id") or first.get("sessionId")
    payload = first.get("payload")
    if found is None and first.get("type") == "session_meta" and isinstance(payload, dict):
        found = payload.get("id")
    return found if isinstance(found, str) else None


def check_one_session(files: Sequence[str]) -> None:
    """Raise a UserError naming the files when `files` are not all of one session."""
    if len(files) < 2:
        return
    order = reader_order()
    known = readers()
    groups: list[set[str]] = []  # the files of each session named, as the readers group them
    for path in files:
        name = claim(path, order)
        whole = set(session_of(known[name](), path).files) if name in known else {path}
        whole.add(path)
        if not any(path in g for g in groups):
            groups.append(whole)
    if len(groups) < 2:
        return
    ids = {session_id(f) for f in files}
    if len(ids) == 1 and None not in ids:
        return  # differently named segments of one session: the ids agree
    shown = ", ".join(files[:LISTED]) + (f" …+{len(files) - LISTED} more" if len(files) > LISTED else "")
    raise UserError(
        f"{shown}: files of {len(groups)} different sessions (names and session ids differ); "
        f"score and explain read one session — to score each, use `citeledger sweep` with these files"
    )
