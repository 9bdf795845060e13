"""`sweep`'s text: the slice table per ruleset, the sessions not scored, the quantile note."""

from __future__ import annotations

from citeledger.report.tables import layout, pct, render_slices
from citeledger.report.text import added_line

QUANTILE_NOTE = (
    "quantiles: Hyndman-Fan type 7 (linear interpolation between order statistics, "
    "as numpy and R by default); pooled = sum of used chars / sum of envelope chars over scored sessions"
)


NOT_SCORED_LISTED = 20  # text lists this many unscored sessions; JSON and --out list all


def render_text(header: dict, tables: list[list[dict]], unscored: list[dict], warnings: int, floors: dict,
                sufficiency: str = "", by: str = "", by_rows=(), sessions=()) -> str:
    """`sufficiency`: the pooled sufficiency block (sweep --sufficiency), printed after the slice tables;
    `by_rows`: per ruleset, its `--by` groups (after its slices); `sessions`: `--sessions`' rows."""
    turns = header["single_question"], header["multi_turn"]
    lines = [
        f"citeledger sweep — {header['sessions']} sessions ({turns[0]} single-question, {turns[1]} multi-turn) "
        f"under {', '.join(header['paths'])}"
    ]
    out = "\n".join(lines) + "\n" + added_line(header.get("added", ()))
    for i, rows in enumerate(tables):
        name = rows[0]["ruleset"]
        out += f"\nruleset {name}:\n" + render_slices(rows, floors[name])
        if by and i < len(by_rows):
            out += f"\n  by {by}:\n" + render_groups(by_rows[i], floors[name], by)
    if sessions:
        out += "\n" + render_sessions(sessions, tables[0][0]["ruleset"] if tables else "")
    if sufficiency:
        out += "\n" + sufficiency
    if unscored:
        out += f"\nnot scored ({len(unscored)}):\n"
        shown = unscored[:NOT_SCORED_LISTED]
        width = max(len(u["status"]) for u in shown)
        for u in shown:
            ruleset = f" [{u['ruleset']}]" if len(tables) > 1 else ""
            out += f"  {u['status']:<{width}}  {u['session']}{ruleset}  — {u['reason']}\n"
        if len(unscored) > len(shown):
            out += f"  … and {len(unscored) - len(shown)} more ({not_scored_counts(unscored[len(shown):])}; all in --json and --out)\n"
    if warnings:
        out += f"\n{warnings} input warning(s), listed on stderr\n"
    out += "\n" + QUANTILE_NOTE + ".\n"
    return out


def render_groups(rows, floor: str, by: str) -> str:
    """`--by`'s table: one pooled row per day, project or model, the slice table's columns."""
    return render_slices([dict(r, slice=r["group"]) for r in rows], floor, first=by)


def render_sessions(rows, ruleset: str) -> str:
    """`--sessions`: one row per session, by start time (as logged, to the minute)."""
    headers = ("started", "project", "agent", "turns", "calls", "chars", "efficiency", "session")
    body = [((r["started"] or "—")[:16].replace("T", " "), r["project"] or "—", r["agent"] or "—", r["turns"],
             r["calls"], f"{r['envelope']:,}", pct(r["efficiency"]) if r["status"] == "scored" else r["status"],
             r["session"]) for r in rows]
    title = f"sessions ({len(rows)}), by start time, under ruleset {ruleset}:\n"
    return title + layout(headers, body, (False, False, False, True, True, True, True, False))


def not_scored_counts(rows: list[dict]) -> str:
    counts: dict[str, int] = {}
    for u in rows:
        counts[u["status"]] = counts.get(u["status"], 0) + 1
    return ", ".join(f"{n} {status}" for status, n in counts.items())


def turn_counts(turns: list[int]) -> dict:
    return {"single_question": sum(1 for t in turns if t <= 1), "multi_turn": sum(1 for t in turns if t > 1)}
