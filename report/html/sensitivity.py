"""Sensitivity as a page, rendered from the records `sensitivity --json` prints
(its header and one row per ruleset and slice), with the delta plot inlined."""

from __future__ import annotations

from typing import Optional

from citeledger.core import points
from citeledger.report.html.compare import inline_svg
from citeledger.report.html.page import cell, document, esc, field, num, pct, table, warnings_list


def sensitivity_page(header: dict, rows: list[dict], warnings: list[dict], plot_svg: Optional[bytes] = None) -> str:
    title = f"citeledger sensitivity — {', '.join(header['paths'])}"
    base = header["base"]
    body_rows = []
    for r in rows:
        is_base = r["ruleset"] == base

        def delta(key):  # the text leaves the base's deltas empty
            return "<td class=num></td>" if is_base else cell(key, r[key], points(r[key]))

        body_rows.append(
            f'<tr data-ruleset="{esc(r["ruleset"])}" data-slice="{esc(r["slice"])}">'
            f'<th scope="row"><code>{esc(r["ruleset"])}</code></th><td>{esc(r["slice"])}</td>'
            + cell("n", r["n"], str(r["n"]))
            + cell("pooled", r["pooled"], pct(r["pooled"])) + delta("delta_pooled")
            + cell("median", r["median"], pct(r["median"])) + delta("delta_median")
            + cell("p25", r["p25"], pct(r["p25"])) + delta("delta_p25")
            + ("<td class=num></td><td class=num></td>" if is_base else
               cell("paired", r.get("paired"), str(r.get("paired"))) + cell("dropped", r.get("dropped"),
                                                                            str(r.get("dropped"))))
            + ("<td class=num></td>" if is_base else
               f'<td class="num" data-field="changed" data-value="{r["changed"]}">{r["changed"]}/{r["compared"]}</td>')
            + "</tr>"
        )
    body = [
        f"<h1>{esc(title)}</h1>",
        '<dl class="summary">'
        f'<dt>sessions</dt><dd>{field("sessions", header["sessions"], num(header["sessions"]))} '
        f'({header["single_question"]} single-question, {header["multi_turn"]} multi-turn; '
        f'{header["unreadable"]} unreadable)</dd>'
        f'<dt>base ruleset</dt><dd><code>{esc(base)}</code></dd>'
        f'<dt>rulesets</dt><dd>{", ".join(f"<code>{esc(n)}</code>" for n in header["rulesets"])}</dd></dl>',
        table(("ruleset", "slice", "n", "pooled", "Δ pt", "median", "Δ pt", "p25", "Δ pt", "paired", "dropped",
               "changed"), body_rows, cls="sortable", numeric=(2, 3, 4, 5, 6, 7, 8, 9, 10, 11)),
        '<p class="muted">n, pooled, median, p25: over the sessions each ruleset could score. Δ pt: percentage '
        "points from the base, both over the sessions the ruleset and the base score (paired); dropped: "
        "sessions only one of them scores. changed: sessions whose credited files or status differ from "
        "the base's. Quantiles: Hyndman-Fan type 7.</p>",
    ]
    if plot_svg:
        body.append(f'<section id="plot"><h2>Plot</h2><figure>{inline_svg(plot_svg)}<figcaption>pooled delta per '
                    "slice (bars) and each session's paired delta (dots)</figcaption></figure></section>")
    body.append(warnings_list(warnings))
    return document(title, "".join(body), "sensitivity")
