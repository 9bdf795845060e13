"""What the agent did next after each call of every retrieval source: the text block and its
JSON (harness/next_acts.py computes; the explore sufficiency block is report/sufficiency.py's)."""

from __future__ import annotations

from citeledger.core import NEXT_BUCKETS as BUCKETS, NEXT_LABELS as LABELS, printable
from citeledger.report.sufficiency import plural, share


def render_next_acts(found) -> str:
    calls = found.calls
    lines = [f"Next acts — what the agent did NEXT after each retrieval call, by tool ({plural(len(calls), 'call')}):"]
    for tool in found.tools():
        counts = found.counts(tool)
        total = sum(counts)
        said = " · ".join(f"{LABELS[b]} {n} ({share(n, total)})" for b, n in zip(BUCKETS, counts) if n)
        lines.append(f"  {printable(tool)}: {plural(total, 'call')} — {said}")
    for act in calls:
        lines.append(f"  call {act.call} {printable(act.tool)} → {printable(act.next)}  [{act.bucket}]")
    return "\n".join(lines) + "\n"


def next_acts_dict(found) -> dict:
    return {
        "counts": dict(zip(BUCKETS, found.counts())),
        "by_tool": {tool: dict(zip(BUCKETS, found.counts(tool))) for tool in found.tools()},
        "calls": [{"call": a.call, "source": a.source, "tool": a.tool, "bucket": a.bucket, "next": a.next}
                  for a in found.calls],
    }
