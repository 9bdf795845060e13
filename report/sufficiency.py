"""The sufficiency block (sufficiency.md "The block") and its JSON.

Byte for byte the reference's block, at the base indent the allocation block
is printed at (the reference's two-space indent dropped, as for allocation).
"""

from __future__ import annotations

import re

from typing import Optional

from citeledger.core import BUCKETS, MAIN, NONE, Sufficiency, js_slice, pooled, printable, to_fixed, utf16_len
from citeledger.report.columns import layout
from citeledger.report.text import TOOL_NAME

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
    return js_slice(query, QUERY_UNITS) + "…"


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
        return f"Explore sufficiency: no answered {TOOL_NAME} calls{tail}\n"
    lines = [f"Explore sufficiency — what the agent did NEXT ({plural(s.answered, 'answered call')}):"]
    lines += bucket_lines(s.counts, s.answered)
    for i, call in enumerate(s.calls, 1):
        sub = " [subagent]" if call.thread != MAIN else ""
        lines.append(f'  {i}.{sub} "{printable(cut_query(call.query))}" [{plural(call.files, "file")}] → {printable(call.next)}')
    notes = []
    if s.errors:
        notes.append(f"{plural(s.errors, 'errored/unanswered call')} (not bucketed)")
    if s.concurrent:
        notes.append(f"{plural(s.concurrent, 'file-access call')} in the SAME message as an explore (not a reaction)")
    if notes:
        lines.append("  note: " + " · ".join(notes))
    return _LONE_SURROGATE.sub("\ufffd", "\n".join(lines) + "\n")


def sufficiency_dict(s: Sufficiency, limit: Optional[int] = None) -> dict:
    """`limit`: the first calls only, with `calls_more` (a page's bound)."""
    calls = s.calls if limit is None else s.calls[:limit]
    out = {
        "counts": dict(zip(BUCKETS, s.counts)),
        "answered": s.answered,
        "errors": s.errors,
        "concurrent": s.concurrent,
        "calls": [
            {"thread": c.thread, "query": c.query, "files": c.files, "chars": c.chars, "bucket": c.bucket, "next": c.next}
            for c in calls
        ],
    }
    if limit is not None:
        out["calls_more"] = len(s.calls) - len(calls)
    return out


# ---------------------------------------------------------------- pooled over a corpus (sweep, compare)
#
# The harness pools an arm's runs over every answered call (sufficiency.md, last
# bullet): one row per bucket with the count and its share of the answered
# calls, the answered calls, and the errored total when any run has one.

ERRORED_LABEL = "errored/unanswered calls"
FIELDS = (*BUCKETS, "answered", "errors", "concurrent", "sessions")  # the CSV's flat columns, after a prefix


def counted_dict(s: Sufficiency) -> dict:
    """One session's numbers without its calls: what a sweep's session record carries."""
    return {"counts": dict(zip(BUCKETS, s.counts)), "answered": s.answered, "errors": s.errors,
            "concurrent": s.concurrent}


def from_counted(data) -> Sufficiency:
    """A session record's `sufficiency` back as numbers (a sweep output read by compare)."""
    counts = data["counts"]
    return Sufficiency(tuple(int(counts[b]) for b in BUCKETS), int(data["answered"]), int(data["errors"]),
                       int(data["concurrent"]), ())


def pooled_dict(s: Sufficiency, sessions: int) -> dict:
    """Pooled numbers: the sessions pooled, counts per bucket, answered, errors, concurrent."""
    return {"sessions": sessions, **counted_dict(s)}


def csv_columns(prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}sufficiency_{f}" for f in FIELDS)


def flat(prefix: str, data: dict) -> dict:
    """A pooled_dict as flat CSV fields (`<prefix>sufficiency_<bucket>`, ...)."""
    values = {**data["counts"], **{k: data[k] for k in ("answered", "errors", "concurrent", "sessions")}}
    return {f"{prefix}sufficiency_{f}": values[f] for f in FIELDS}


def count_cell(count: int, answered: int) -> str:
    """A bucket's count and its share of the answered calls (no share without one)."""
    return f"{count} ({share(count, answered)})" if answered else str(count)


def pooled_rows(columns) -> list[list[str]]:
    """Rows of the pooled table, one cell per column of `columns` (each a pooled Sufficiency):
    one row per bucket, worst to best, then answered calls, then errored calls when any has one."""
    rows = [[LABELS[b][0]] + [count_cell(s.counts[i], s.answered) for s in columns] for i, b in enumerate(BUCKETS)]
    rows.append(["answered calls"] + [str(s.answered) for s in columns])
    if any(s.errors for s in columns):
        rows.append([ERRORED_LABEL] + [str(s.errors) for s in columns])
    return rows


POOLED_TITLE = "Explore sufficiency — what the agent did NEXT, pooled over every answered call"
SWEEP_TITLE = POOLED_TITLE + " (not per session)"
COMPARE_TITLE = POOLED_TITLE + " of each arm's runs (not per run), per group"


def render_pooled_slices(slices: dict) -> str:
    """A sweep's pooled sufficiency: a column per slice, `slices` = {name: (Sufficiency, sessions)}."""
    names = list(slices)
    rows = pooled_rows([slices[n][0] for n in names])
    rows.insert(0, ["sessions"] + [str(slices[n][1]) for n in names])
    return (SWEEP_TITLE + ":\n"
            + layout(("next act", *names), rows, (False,) + (True,) * len(names)))


def render_pooled_groups(groups: list[tuple[str, Sufficiency, Sufficiency]], labels) -> str:
    """compare's pooled sufficiency: per group, a row per bucket with a column per arm."""
    body = []
    for name, base, new in groups:
        rows = pooled_rows([base, new])
        body += [[name if i == 0 else "", *row] for i, row in enumerate(rows)]
    return COMPARE_TITLE + ":\n" + layout(("group", "next act", *labels), body, (False, False, True, True))


class PooledSufficiency:
    """Running totals of session sufficiencies per label (a slice, or a group and side), labels
    in first-seen order; only numbers are kept, never a session's calls."""

    def __init__(self, labels=()):
        self.totals: dict = {}
        self.sessions: dict = {}
        for label in labels:
            self.add(label, None)

    def add(self, label, s) -> None:
        total = self.totals.setdefault(label, NONE)
        self.sessions.setdefault(label, 0)
        if s is not None:
            self.totals[label] = pooled((total, s))
            self.sessions[label] += 1

    def get(self, label) -> Sufficiency:
        return self.totals.get(label, NONE)

    def dict(self, label) -> dict:
        return pooled_dict(self.get(label), self.sessions.get(label, 0))


# ---------------------------------------------------------------- beside allocation (the session page)


def next_acts(calls: list[dict], responses, judged: Sufficiency) -> dict[int, dict]:
    """Allocation call number -> {"bucket", "next"} of the same explore call.

    An allocation call is one response with a source section, known by where
    its result was read (`source`: file, line); a judged call by its tool_use
    id. Responses give the id read at each place. Where one event holds more
    results than calls (a result without a section beside one with), the pairing
    is not known and the call is left without a next act rather than guessed.
    """
    by_key = {c.key: c for c in judged.calls}
    ids: dict[tuple, list] = {}
    for r in responses:
        ids.setdefault((r.origin.file, r.origin.line), []).append(r.tool_use_id)
    numbers: dict[tuple, list] = {}
    for call in calls:
        numbers.setdefault((call["source"]["file"], call["source"]["line"]), []).append(call["call"])
    out = {}
    for place, called in numbers.items():
        read = ids.get(place, [])
        if len(read) != len(called):
            continue
        for number, key in zip(called, read):
            found = by_key.get(key)
            if found is not None:
                out[number] = {"bucket": found.bucket, "next": found.next}
    return out


def with_next_acts(data: dict, transcript, judged: Sufficiency, every_call=None, limit: Optional[int] = None) -> dict:
    """A session page's dict with each call's next act and the session's sufficiency (page only:
    the JSON output carries `sufficiency` with --sufficiency). `every_call`: each call's number and
    source (`{"call", "source"}`), when `data` lists only some (a bounded page); `limit`: the
    sufficiency's calls listed."""
    acts = next_acts(data["calls"] if every_call is None else every_call, transcript.responses, judged)
    calls = [dict(c, sufficiency=acts[c["call"]]) if c["call"] in acts else c for c in data["calls"]]
    return dict(data, calls=calls, sufficiency=sufficiency_dict(judged, limit))
