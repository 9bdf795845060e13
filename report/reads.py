"""What the agent read after each explore call: returned files it opened, and
files it opened that no explore returned (the retrieval tool's recall misses).

Shown beside a ranked channel that places reads against the explore calls
(one with a `call_reads(envelope)` method: read_after, in rulesets such as
`reactions`). The placement is the channel's own, so this list and the
channel's credit always agree; report reaches it through core's registry.
"""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.core import Envelope, channels, readable_responses


@attrs.frozen
class PlacedReads:
    """The reads one channel placed, call by call (its `call_reads` rows)."""

    channel: str
    calls: tuple


def call_reads(transcript, score, ruleset) -> Optional[PlacedReads]:
    """The first ranked channel's reads per call of `score` (the transcript's under `ruleset`), or
    None when no ranked channel places reads."""
    installed = channels()
    rule = next((r for r in ruleset.channels if hasattr(installed.get(r.name), "call_reads")), None)
    if rule is None:
        return None
    responses = readable_responses(transcript, ruleset)
    calls = score.cut
    paths = tuple(dict.fromkeys(s.path for c in calls for s in c.sections if not s.meta))
    envelope = Envelope(calls, paths, tool_uses=transcript.tool_uses, responses=responses)
    return PlacedReads(rule.name, tuple(installed[rule.name](rule.options).call_reads(envelope)))


def _read(read) -> dict:
    return {"tool": read.tool, "id": read.id, "path": read.target, "thread": read.thread,
            "file": read.origin.file, "line": read.origin.line}


def reads_dict(placed: PlacedReads) -> list[dict]:
    return [
        {"call": c.call, "thread": c.thread,
         placed.channel: [dict(_read(r), returned=p) for p, r in c.returned],
         "recall_misses": [_read(r) for r in c.misses]}
        for c in placed.calls
    ]


def render_reads(placed: PlacedReads) -> str:
    lines = [f"Reads after explore calls ({placed.channel}; a subagent is its own thread):"]
    for c in placed.calls:
        thread = f", subagent {c.thread}" if c.thread else ""
        lines.append(f"  call {c.call}{thread}:")
        if not c.returned and not c.misses:
            lines.append("    nothing read after it")
        for path, r in c.returned:
            lines.append(f"    read    {path}  ({r.tool} {r.id} {r.target})")
        for r in c.misses:
            lines.append(f"    missed  {r.target}  ({r.tool} {r.id}: read, returned by no explore call)")
    return "\n".join(lines) + "\n"
