"""The session page's residual context occupancy (CG-7): the residual per family against the window.

Rendered from the `occupancy` record `score --json` prints (the occupancy
metric's `as_json`): one bar as wide as the window, each tool family's
residual tokens a segment in the family's colour (report/palette.py), the
base (prompt and prose) after them, the free window left blank; below it the
same numbers in a table, as the harness's block lists them.
"""

from __future__ import annotations

from citeledger.core import js_round, to_fixed
from citeledger.report.html.page import cell, esc, field, num, pct, table
from citeledger.report.palette import FAMILIES

# (label, family key of the record): the harness's rows (report/harness.py ROWS), drawn families first.
DRAWN = (("codegraph", "codegraph"), ("Read", "read"), ("Grep/Glob", "search"), ("Bash", "bash"),
         ("other tools", "other"))
LISTED = DRAWN[:4] + (("→ file-access", "file_access"),) + DRAWN[4:]


def occupancy_section(o) -> str:
    """The section for an `occupancy` record; the line saying it is not logged for None."""
    if o is None:
        return ('<section id="occupancy"><h2>Residual context occupancy</h2><p class="muted">Not measurable: '
                "this transcript's format logs no prompt sizes.</p></section>")
    window = o["window_tokens"]
    share = o["final_context"] / window
    measure = (f'{to_fixed(o["chars_per_token"], 2)} chars/token '
               + ("measured" if o["calibrated"] else "(fallback: no clean gap to calibrate on)")
               + ("" if o["dispersion"] is None else f' ±{to_fixed(o["dispersion"] * 100, 1)}%'))
    return (
        '<section id="occupancy"><h2>Residual context occupancy (CG-7)</h2>'
        f'<p>Final context {field("final_context", o["final_context"], num(o["final_context"]))} tokens, '
        f'{field("final_context_share_of_window", share, pct(share))} of the '
        f'{field("window_tokens", window, f"{js_round(window / 1000)}k")} window; of which fixed '
        f'{field("fixed", o["fixed"], num(o["fixed"]))} (system, tool schemas and question, before any tool '
        f'answered). Measure: {esc(measure)}; {num(o["requests"])} requests, {num(o["compactions"])} compactions, '
        f'{num(o["evicted"])} tokens evicted.</p>'
        + _bar(o) + _legend() + _table(o) + "</section>"
    )


def _bar(o) -> str:
    window, families = o["window_tokens"], o["families"]
    parts = [(label, key, families[key]["residual"]) for label, key in DRAWN] + [("base (prompt+prose)", "base", o["base"])]
    segs = []
    for label, key, tokens in parts:
        if tokens <= 0:
            continue
        text = f"{label}: {tokens:,} tokens, {100 * tokens / window:.1f}% of the window"
        segs.append(f'<span class="fam" data-family="{key}" style="width:{min(100.0, 100 * tokens / window):.4f}%;'
                    f'background:{FAMILIES[key]}" title="{esc(text)}"></span>')
    free = max(0, window - o["final_context"])
    label = (f"residual context at the end of the run: {o['final_context']:,} of {window:,} tokens; "
             + ", ".join(f"{lab} {t:,}" for lab, _, t in parts))
    return (f'<div class="bar occupancy" role="img" aria-label="{esc(label)}" data-free="{free}">'
            + "".join(segs) + "</div>")


def _legend() -> str:
    items = [f'<span><span class="swatch" style="background:{FAMILIES[key]}"></span>{esc(label)}</span>'
             for label, key in DRAWN + (("base (prompt+prose)", "base"),)]
    items.append('<span><span class="swatch"></span>free window</span>')
    return '<div class="legend" aria-label="occupancy legend">' + "".join(items) + "</div>"


def _table(o) -> str:
    from citeledger.report.html.page import table

    window, final = o["window_tokens"], o["final_context"]
    rows = []
    for label, key in LISTED:
        f = o["families"][key]
        rows.append(f'<tr data-family="{key}"><th scope="row">{esc(label)}</th>'
                    + cell("residual", f["residual"], num(f["residual"]))
                    + cell("share_of_context", f["share_of_context"], pct(f["share_of_context"]))
                    + cell("share_of_window", f["share_of_window"], pct(f["share_of_window"]))
                    + cell("chars", f["chars"], num(f["chars"])) + cell("results", f["results"], num(f["results"]))
                    + "</tr>")
    base_share = o["base"] / final if final > 0 else 0.0
    rows.append('<tr data-family="base"><th scope="row">base (prompt+prose)</th>'
                + cell("residual", o["base"], num(o["base"])) + cell("share_of_context", base_share, pct(base_share))
                + cell("share_of_window", o["base"] / window, pct(o["base"] / window))
                + "<td></td><td></td></tr>")
    return table(("family", "residual (tok)", "of context", "of window", "chars", "results"), rows,
                 cls="residual", numeric=(1, 2, 3, 4, 5))


def pooled_occupancy_section(records: list[dict]) -> str:
    """A sweep's `pooled-occupancy` records (report/occupancy_pool.py) as a table: per slice and arm,
    the sessions and each figure's median [min–max] as the text prints it, the record's numbers in
    data-value. Empty when no session logs prompt sizes."""
    from citeledger.report.occupancy_pool import FIGURES, HEADINGS, POOLED_TITLE, shown_cells

    if not records:
        return ""
    rows = []
    for r in records:
        key = f'{r["slice"]}.{r["arm"]}.'
        figures = "".join(cell(key + name, r[name], shown) for (name, _), shown in zip(FIGURES, shown_cells(r)))
        rows.append(f'<tr><td>{esc(r["slice"])}</td><td>{esc(r["arm"])}</td>'
                    f'{cell(key + "sessions", r["sessions"], str(r["sessions"]))}{figures}</tr>')
    return (f'<section id="occupancy"><h2>Residual context occupancy (CG-7)</h2>'
            f'<p class="muted">{esc(POOLED_TITLE.split(": ", 1)[1])}.</p>'
            + table(HEADINGS, rows, numeric=(2, 3, 4, 5)) + "</section>")
