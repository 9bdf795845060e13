"""The sufficiency block (sufficiency.md "The block") and its JSON.

Byte for byte the reference's block, at the base indent the allocation block
is printed at (the reference's two-space indent dropped, as for allocation).
"""

from __future__ import annotations

import re

from citeledger.core.jsstr import to_fixed, utf16_len
from citeledger.core.sufficiency import BUCKETS, MAIN, Sufficiency

LABELS = {
    "explore_again": ("explore again", "insufficient: did not answer"),
    "read_returned": ("Read a file we returned", "allocation: right file, wrong bytes"),
    "read_missed": ("Read a file we did not return", "recall: file never surfaced"),
    "search": ("Grep/Glob", "recall (weak): still hunting for the file"),
    "sufficient": ("moved on / answered", "sufficient"),
}
# Node writes a lone surrogate (a query cut inside a pair, a `\ud800` escape)
# to its UTF-8 stdout as U+FFFD; the block does the same, to stay byte-identical.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
QUERY_UNITS = 45  # a query longer than QUERY_UNITS + 1 UTF-16 units is cut to QUERY_UNITS and "…"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def share(count: int, total: int) -> str:
    """count / total as a whole percent, rounded as JavaScript's toFixed(0) (12.5 -> 13)."""
    return to_fixed(count / total * 100, 0) + "%"


def cut_query(query: str) -> str:
    """The first 45 UTF-16 units and "…" when longer than 46 (a pair cut in two leaves its lead half)."""
    if utf16_len(query) <= QUERY_UNITS + 1:
        return query
    units = query.encode("utf-16-le", "surrogatepass")[: 2 * QUERY_UNITS]
    return units.decode("utf-16-le", "surrogatepass") + "…"


def bucket_lines(counts, answered: int) -> list[str]:
    """One line per bucket, worst to best: count, share, label, meaning."""
    lines = []
    for bucket, count in zip(BUCKETS, counts):
        label, meaning = LABELS[bucket]
        lines.append(f"  {count:>3} {share(count, answered):>4}  {label:<31}{meaning}")
    return lines


def render_sufficiency(s: Sufficiency) -> str:
    if not s.answered:
        tail = f" ({s.errors} errored or never returned)" if s.errors else ""
        return f"Explore sufficiency: no answered codegraph_explore calls{tail}\n"
    lines = [f"Explore sufficiency — what the agent did NEXT ({plural(s.answered, 'answered call')}):"]
    lines += bucket_lines(s.counts, s.answered)
    for i, call in enumerate(s.calls, 1):
        sub = " [subagent]" if call.thread != MAIN else ""
        lines.append(f'  {i}.{sub} "{cut_query(call.query)}" [{plural(call.files, "file")}] → {call.next}')
    notes = []
    if s.errors:
        notes.append(f"{plural(s.errors, 'errored/unanswered call')} (not bucketed)")
    if s.concurrent:
        notes.append(f"{plural(s.concurrent, 'file-access call')} in the SAME message as an explore (not a reaction)")
    if notes:
        lines.append("  note: " + " · ".join(notes))
    return _LONE_SURROGATE.sub("\ufffd", "\n".join(lines) + "\n")


def sufficiency_dict(s: Sufficiency) -> dict:
    return {
        "counts": dict(zip(BUCKETS, s.counts)),
        "answered": s.answered,
        "errors": s.errors,
        "concurrent": s.concurrent,
        "calls": [
            {"thread": c.thread, "query": c.query, "files": c.files, "chars": c.chars, "bucket": c.bucket, "next": c.next}
            for c in s.calls
        ],
    }
