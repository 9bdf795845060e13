"""What the agent read after each explore call: returned files it opened, and
files it opened that no explore returned (the retrieval tool's recall misses).

Shown beside the read_after channel (rulesets that rank it, e.g. `reactions`);
the placement rules are core.reads', so this list and the channel's credit
always agree.
"""

from __future__ import annotations

from typing import Optional

from citeledger.core import calls_of, reads_by_call, reads_of


def call_reads(transcript, ruleset) -> Optional[tuple]:
    """core.CallReads per call, or None when the ruleset does not rank read_after."""
    if "read_after" not in ruleset.channel_names:
        return None
    options = ruleset.options_for("read_after")
    responses = transcript.responses
    if ruleset.reader.bom == "unreadable" and transcript.bom_lines:
        lost = set(transcript.bom_lines)
        responses = tuple(r for r in responses if r.origin not in lost and r.tool_use_origin not in lost)
    calls = calls_of(responses, ruleset)
    paths = tuple(dict.fromkeys(s.path for c in calls for s in c.sections if not s.meta))
    reads = reads_of(transcript.tool_uses, options.read_tools, options.search_tools)
    return reads_by_call(calls, responses, reads, paths)


def _read(read) -> dict:
    return {"tool": read.tool, "id": read.id, "path": read.target, "thread": read.thread,
            "file": read.origin.file, "line": read.origin.line}


def reads_dict(placed) -> list[dict]:
    return [
        {"call": c.call, "thread": c.thread,
         "read_after": [dict(_read(r), returned=p) for p, r in c.returned],
         "recall_misses": [_read(r) for r in c.misses]}
        for c in placed
    ]


def render_reads(placed) -> str:
    lines = ["Reads after explore calls (read_after; a subagent is its own thread):"]
    for c in placed:
        thread = f", subagent {c.thread}" if c.thread else ""
        lines.append(f"  call {c.call}{thread}:")
        if not c.returned and not c.misses:
            lines.append("    nothing read after it")
        for path, r in c.returned:
            lines.append(f"    read    {path}  ({r.tool} {r.id} {r.target})")
        for r in c.misses:
            lines.append(f"    missed  {r.target}  ({r.tool} {r.id}: read, returned by no explore call)")
    return "\n".join(lines) + "\n"
