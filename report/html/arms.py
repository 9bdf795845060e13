"""Every arm of `compare ROOT --arms A B C --arm-pattern REGEX --html PATH` on one page: per
question, each arm's scored runs and median, and each later arm's difference from the first
(its interval from that comparison's page, `PATH-<arm>.html`, linked). Rendered from the
group records `--json` prints for each comparison, so the medians are the same numbers."""

from __future__ import annotations

from typing import Sequence

from citeledger.core import points
from citeledger.report.html.page import cell, document, esc, pct, table


def arms_page(root: str, ruleset: str, arms: Sequence[str], comparisons: Sequence[tuple]) -> str:
    """`comparisons`: (arm, its group records against the first arm, the page of that comparison)."""
    title = f"citeledger compare — arms {', '.join(arms)}"
    order: list = []
    by: dict = {}
    for arm, groups, _ in comparisons:
        for g in groups:
            if g["group"] not in by:
                order.append(g["group"])
                by[g["group"]] = {}
            by[g["group"]][arm] = g
    rows = [_row(group, by[group], arms) for group in order]
    headers = ["question", f"{arms[0]} runs", f"{arms[0]} median"]
    for arm in arms[1:]:
        headers += [f"{arm} runs", f"{arm} median", f"{arm} − {arms[0]} (pp)", "CI (pp)"]
    links = "".join(f'<li><a href="{esc(page)}">{esc(arms[0])} vs {esc(arm)}</a></li>'
                    for arm, _, page in comparisons if page)
    body = (f"<h1>{esc(title)}</h1>"
            f'<dl class="summary"><dt>root</dt><dd><code>{esc(root)}</code></dd>'
            f'<dt>ruleset</dt><dd><code>{esc(ruleset)}</code></dd>'
            f'<dt>baseline</dt><dd><code>{esc(arms[0])}</code></dd></dl>'
            '<section id="arms"><h2>Arms</h2>'
            + table(headers, rows, cls="sortable groups", numeric=tuple(range(1, len(headers))))
            + '<p class="muted">Each arm\'s runs are its scored sessions of the question; the median is '
            "the one its comparison with the first arm gives; (all) pools the questions both of that "
            "comparison's arms score.</p></section>"
            f'<section id="comparisons"><h2>Comparisons</h2><ul>{links}</ul></section>')
    return document(title, body, "compare")


def _row(group: str, found: dict, arms: Sequence[str]) -> str:
    first = next(iter(found.values()))
    cells = [f"<th scope=\"row\">{esc(group)}</th>",
             cell("runs", first["base_n"], str(first["base_n"])),
             cell("median", first["base_median"], pct(first["base_median"]))]
    for arm in arms[1:]:
        g = found.get(arm)
        if g is None:
            cells += ['<td class="num">—</td>'] * 4
            continue
        ci = "—" if g["ci_low"] is None else f"[{points(g['ci_low'])}, {points(g['ci_high'])}]"
        difference = g["difference"]
        cells += [cell("runs", g["new_n"], str(g["new_n"])), cell("median", g["new_median"], pct(g["new_median"])),
                  cell("difference", difference, "—" if difference is None else points(difference)),
                  f'<td class="num">{esc(ci)}</td>']
    return f'<tr data-group="{esc(group)}">' + "".join(cells) + "</tr>"
