"""A sweep as a page, rendered from the records the JSON lines output holds.

The header record, the slice records (per ruleset), the session records and
the not-scored list are the same dicts `sweep --json` prints, so every number
on the page is one of its numbers.

Size rule (docs/decisions.md): every session has a row in its ruleset's
session index and its own collapsed section; the sections come in collapsed
pages of PAGE sessions and list a session's top TOP_FILES files (as the text
block does), so a 5,000-session sweep stays a few MB and the browser lays out
only what is opened.
"""

from __future__ import annotations

import re


from citeledger.core import ratio
from citeledger.report.html.page import (
    CREDITED, NOT_CREDITED, cell, document, esc, field, mark, num, pct, swatch, table, warnings_list,
)
from citeledger.report.html.svg import histogram
from citeledger.report.palette import HISTOGRAM
from citeledger.report.sufficiency import cut_query

PAGE = 500
TOP_FILES = 12  # as report.text.TOP_FILES
# Sessions listed per ruleset (its index rows and sections), the first in the page's order; the
# rest are counted (every one is in sweep.jsonl and sessions.csv) and still in the histograms.
SESSIONS_LISTED = 5_000
CALLS_LISTED = 100  # a session's calls shown (efficiency and query), the first
SESSION_KEYS = (
    "session", "ruleset", "status", "reason", "turns", "envelope", "used", "efficiency", "path_only",
    "calls", "call_efficiencies", "call_queries", "files_returned", "files_used", "warnings", "inputs",
)

SLICE_HEADERS = ("slice", "n", "pooled", "median", "p25", "p75", "min", "{floor}-only", "calls", "call median",
                 "call p25", "not scored")
SLICE_FIELDS = ("n", "pooled", "median", "p25", "p75", "min", "path_only_pooled", "calls", "call_median",
                "call_p25", "not_scored")


def keep(row: dict) -> dict:
    """What the page needs of one session record: its numbers and its top files (bounded memory)."""
    out = {k: row[k] for k in SESSION_KEYS}
    # A query is shown cut (as the sufficiency block cuts it): the page's bytes stay bounded.
    out["call_queries"] = [None if q is None else cut_query(q) for q in row["call_queries"][:CALLS_LISTED]]
    out["files"] = row["files"][:TOP_FILES]
    return out


class PageSessions:
    """What the page keeps of a sweep's sessions, in memory bounded by SESSIONS_LISTED per ruleset:
    the first SESSIONS_LISTED of each ruleset in the page's (natural) order, every session counted,
    and every scored session's efficiency and call efficiencies (numbers) for the histograms."""

    def __init__(self, rows=()):
        self.kept: dict[str, list] = {}
        self.counts: dict[str, int] = {}
        self.efficiencies: dict[str, list] = {}
        self.call_efficiencies: dict[str, list] = {}
        for row in rows:
            self.add(row)

    def add(self, row: dict) -> None:
        name = row["ruleset"]
        self.counts[name] = self.counts.get(name, 0) + 1
        if row["status"] == "scored":
            self.efficiencies.setdefault(name, []).append(row["efficiency"])
            self.call_efficiencies.setdefault(name, []).extend(row["call_efficiencies"])
        kept = self.kept.setdefault(name, [])
        kept.append(row)
        if len(kept) >= 2 * SESSIONS_LISTED:  # sorted and cut now and then: O(n log n) over the sweep
            kept.sort(key=_order)
            del kept[SESSIONS_LISTED:]

    def listed(self, name: str) -> list[dict]:
        """The ruleset's sessions the page lists, in its order."""
        return sorted(self.kept.get(name, []), key=_order)[:SESSIONS_LISTED]


def _order(row: dict) -> tuple:
    return natural_key(row["session"])


def natural_key(name: str) -> tuple:
    """Sort key reading digit runs as numbers: run-baseline-2 before run-baseline-10."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name))


def sweep_page(header: dict, slice_rows: list[list[dict]], sessions, unscored: list[dict],
               warnings: list[dict], floors: dict, sufficiency: str = "", occupancy: str = "") -> str:
    """`sessions`: a PageSessions, or the `keep` dicts of every session. `floors` names each
    ruleset's first-ranked channel (the `path_only` columns' channel); `sufficiency` the pooled
    sufficiency section (sweep --sufficiency) and `occupancy` the pooled occupancy section
    (report/html/occupancy.py), before the rulesets."""
    names = header["rulesets"]
    kept = sessions if isinstance(sessions, PageSessions) else PageSessions(sessions)
    ids: dict[tuple[str, str], str] = {}
    by_ruleset: dict[str, list[dict]] = {n: [] for n in names}
    for name in [*names, *(n for n in kept.kept if n not in names)]:
        for row in kept.listed(name):  # run-x-2 before run-x-10
            group = by_ruleset.setdefault(name, [])
            group.append(row)
            ids[(name, row["session"])] = f"s-{names.index(name) if name in names else 0}-{len(group)}"
    title = f"citeledger sweep — {', '.join(header['paths'])}"
    body = [
        f"<h1>{esc(title)}</h1>",
        '<dl class="summary">'
        f'<dt>sessions</dt><dd>{field("sessions", header["sessions"], num(header["sessions"]))} '
        f'({field("single_question", header["single_question"], str(header["single_question"]))} single-question, '
        f'{field("multi_turn", header["multi_turn"], str(header["multi_turn"]))} multi-turn)</dd>'
        f'<dt>under</dt><dd>{"<br>".join(f"<code>{esc(p)}</code>" for p in header["paths"])}</dd>'
        f'<dt>rulesets</dt><dd>{", ".join(f"<code>{esc(n)}</code>" for n in names)}</dd>'
        "</dl>",
        '<p class="muted">Quantiles: Hyndman-Fan type 7 (linear interpolation between order statistics, as numpy '
        "and R by default); pooled = sum of used chars / sum of envelope chars over scored sessions.</p>",
        '<nav><ul>' + "".join(f'<li><a href="#ruleset-{i}">ruleset {esc(n)}</a></li>' for i, n in enumerate(names))
        + ('<li><a href="#occupancy">occupancy</a></li>' if occupancy else "")
        + ('<li><a href="#not-scored">not scored</a></li>' if unscored else "")
        + ('<li><a href="#warnings">input warnings</a></li>' if warnings else "") + "</ul></nav>",
    ]
    body.append(sufficiency)  # before the rulesets' long session lists
    body.append(occupancy)
    for i, (name, rows) in enumerate(zip(names, slice_rows)):
        body.append(_ruleset(i, name, rows, by_ruleset.get(name, []), ids, floors[name], kept))
    if unscored:
        body.append(_unscored(unscored, ids, len(names) > 1))
    body.append(warnings_list(warnings))
    return document(title, "".join(body), "sweep")


def _ruleset(i: int, name: str, rows: list[dict], sessions: list[dict], ids: dict, floor: str,
             kept: PageSessions) -> str:
    slice_rows = []
    for r in rows:
        cells = "".join(
            cell(k, r[k], str(r[k]) if k in ("n", "calls", "not_scored") else pct(r[k])) for k in SLICE_FIELDS
        )
        slice_rows.append(f'<tr data-ruleset="{esc(name)}" data-slice="{esc(r["slice"])}"><th scope="row">{esc(r["slice"])}</th>{cells}</tr>')
    session_effs = kept.efficiencies.get(name, [])
    call_effs = kept.call_efficiencies.get(name, [])
    return (
        f'<section id="ruleset-{i}" data-ruleset="{esc(name)}"><h2>ruleset <code>{esc(name)}</code></h2>'
        + table([h.format(floor=floor) for h in SLICE_HEADERS], slice_rows, caption="slices", numeric=tuple(range(1, 12)))
        + '<div class="legend">'
        + histogram(session_effs, "session efficiency (scored sessions)", f"hist-{i}-sessions", HISTOGRAM["sessions"])
        + histogram(call_effs, "call efficiency (calls of scored sessions)", f"hist-{i}-calls", HISTOGRAM["calls"])
        + "</div>"
        + _index(i, sessions, ids, floor, kept.counts.get(name, 0))
        + _sections(sessions, ids)
        + "</section>"
    )


def _status(row: dict) -> str:
    return mark(row["status"] == "scored", "scored", "not scored") + " " + esc(row["status"])


def _index(i: int, sessions: list[dict], ids: dict, floor: str, total: int) -> str:
    rows = []
    for n, s in enumerate(sessions, 1):
        sid = ids[(s["ruleset"], s["session"])]
        rows.append(
            f'<tr data-session="{esc(s["session"])}"><td class=num data-value="{n}">{n}</td><td class=status>{_status(s)}</td>'
            f'<td><a href="#{sid}"><code>{esc(s["session"])}</code></a></td>'
            + cell("efficiency", s["efficiency"], pct(s["efficiency"]))
            + cell("path_only", s["path_only"], pct(s["path_only"]))
            + cell("used", s["used"], num(s["used"]))
            + cell("envelope", s["envelope"], num(s["envelope"]))
            + cell("calls", s["calls"], str(s["calls"]))
            + cell("files_used", s["files_used"], str(s["files_used"]))
            + cell("files_returned", s["files_returned"], str(s["files_returned"]))
            + cell("turns", s["turns"], str(s["turns"]))
            + cell("warnings", s["warnings"], str(s["warnings"]))
            + "</tr>"
        )
    more = total - len(sessions)
    return table(
        ("#", "status", "session", "efficiency", f"{floor}-only", "used", "envelope", "calls", "files used",
         "files returned", "turns", "input warnings"),
        rows, caption=f"sessions ({total}) — click a heading to sort", cls="sortable sessions",
        numeric=(0, 3, 4, 5, 6, 7, 8, 9, 10, 11),
    ) + (f'<p class="muted" data-count="{more}">… and {num(more)} more sessions, not listed here: sweep.jsonl and '
         "sessions.csv list every one (the histograms count them all)</p>" if more > 0 else "")


def _sections(sessions: list[dict], ids: dict) -> str:
    out = []
    for start in range(0, len(sessions), PAGE):
        chunk = sessions[start:start + PAGE]
        inner = "".join(_session(s, ids[(s["ruleset"], s["session"])]) for s in chunk)
        out.append(
            f'<details class="page"><summary>sessions {start + 1}–{start + len(chunk)} of {len(sessions)}</summary>'
            f"{inner}</details>"
        )
    return "".join(out)


def _session(s: dict, sid: str) -> str:
    env = s["envelope"]
    # Plain cells (no per-cell data attributes): these rows are most of a large page's bytes.
    files = "".join(
        f"<tr><td>{CREDITED if channel else NOT_CREDITED}</td><td>{esc(path)}</td><td>{num(chars)}</td>"
        f"<td>{pct(ratio(chars, env))}</td><td>{'—' if channel is None else swatch(channel) + esc(channel)}</td></tr>"
        for path, chars, channel in s["files"]
    )
    more = s["files_returned"] - len(s["files"])
    queries = s["call_queries"]  # at most CALLS_LISTED (keep)
    effs = s["call_efficiencies"][:len(queries)] or [None] * len(queries)
    calls = " · ".join(
        ("" if e is None else pct(e)) + ("" if q is None else f" <q>{esc(q)}</q>") for e, q in zip(effs, queries)
    ) or "—"
    if s["calls"] > len(queries) and len(queries) == CALLS_LISTED:
        calls += f" · … {num(s['calls'] - len(queries))} more calls"
    reason = f" — {esc(s['reason'])}" if s["reason"] else ""
    return (
        f'<details id="{sid}" class="session"><summary>{_status(s)} <code>{esc(s["session"])}</code> '
        f"{'' if s['efficiency'] is None else pct(s['efficiency'])}{reason}</summary>"
        f'<p>{num(s["used"])} of {num(env)} chars; calls: {calls}; inputs: '
        + ", ".join(f"<code>{esc(p)}</code>" for p in s["inputs"]) + "</p>"
        + (table(("✓/✗", "file", "chars", "share", "channel"), [files], cls="top", numeric=(2, 3)) if s["files"] else "")
        + (f'<p class="muted">… {more} more files</p>' if more > 0 else "")
        + "</details>"
    )


def _unscored(unscored: list[dict], ids: dict, several: bool) -> str:
    items = []
    for u in unscored:
        sid = ids.get((u["ruleset"], u["session"]))
        name = f"<code>{esc(u['session'])}</code>"
        link = f'<a href="#{sid}">{name}</a>' if sid else name
        ruleset = f" [{esc(u['ruleset'])}]" if several else ""
        items.append(f'<li data-status="{esc(u["status"])}">{mark(False, "not scored")}{esc(u["status"])} {link}{ruleset} — {esc(u["reason"])}</li>')
    return f'<section id="not-scored"><h2>Not scored ({len(unscored)})</h2><ul>{"".join(items)}</ul></section>'

