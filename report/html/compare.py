"""A comparison of two passes as a page, rendered from the records `compare --json` prints.

The group records (every run of each side, medians, difference, interval),
the file records (shares that moved) and the not-compared list are the JSON
output's dicts; the plot is the same strip plot `--plot` writes, inlined as SVG.
"""

from __future__ import annotations

from typing import Optional, Sequence

from citeledger.core import percent, points, to_fixed
from citeledger.report.arm_table import behaviour_items
from citeledger.report.html.diagnostics import diagnostics_section
from citeledger.report.html.page import cell, document, esc, mark, pct, table, value_attr, warnings_list


def compare_page(header: dict, groups: list[dict], files: list[dict], unscored: list[dict],
                 warnings: list[dict], plot_svg: Optional[bytes] = None, other_arms=(), sufficiency: str = "",
                 diagnostics: Sequence[dict] = (), behaviour=()) -> str:
    """`other_arms`: sessions of arms not compared (`compare --arms`), listed as the text lists them;
    `sufficiency` the pooled sufficiency section (compare --sufficiency), after the harness view;
    `diagnostics` the diagnostic join's records (`--json`'s `diagnostics` and `diagnostics-session`);
    `behaviour` per group its sides' runs (CompareResult.behaviour), drawn as the arm table's rows."""
    title = f"citeledger compare — {header['baseline']} vs {header['new']}"
    conf = int(round(header["confidence"] * 100))
    labels = tuple(header["arms"]) if header.get("arms") else ("baseline", "new")
    passes = "".join(f"<code>{esc(p)}</code><br>" for p in header.get("passes") or ())
    rows = [_group_row(g) for g in groups]
    body = [
        f"<h1>{esc(title)}</h1>",
        '<dl class="summary">'
        f'<dt>baseline</dt><dd><code>{esc(header["baseline"])}</code></dd>'
        f'<dt>new</dt><dd><code>{esc(header["new"])}</code></dd>'
        + (f"<dt>passes</dt><dd>{passes}</dd>" if passes else "")
        +         f'<dt>ruleset</dt><dd><code>{esc(header["ruleset"])}</code></dd>'
        f'<dt>grouped by</dt><dd><code>{esc(header["key"])}</code></dd></dl>',
        '<section id="groups"><h2>Groups</h2>'
        + table(
            # The medians, the difference and its interval first: in view in an 800 px window.
            ("group", f"{labels[0]} median", f"{labels[1]} median", "diff (pp)", f"{conf}% CI (pp)",
             f"{labels[0]} n", f"{labels[0]} runs (%)", f"{labels[1]} n", f"{labels[1]} runs (%)",
             f"{labels[0]} not scored", f"{labels[1]} not scored"),
            rows, cls="sortable groups", numeric=(1, 2, 3, 4, 5, 7, 9, 10),
        )
        + f'<p class="muted">Runs are every scored session of the group, in the pass\'s order. Bootstrap: '
        f'{esc(header["resamples"])} percentile resamples of each side\'s median, seed {esc(header["seed"])} '
        "(numpy PCG64 seeded with the seed and the runs' values); (all) pools the groups scored on both sides. "
        "Quantiles: Hyndman-Fan type 7.</p></section>",
    ]
    body.append(_harness(groups, labels))
    body.append(_behaviour(behaviour))
    body.append(sufficiency)
    if plot_svg:
        body.append(f'<section id="plot"><h2>Plot</h2><figure>{inline_svg(plot_svg)}'
                    "<figcaption>explore allocation efficiency per run: baseline beside new, bars at the medians"
                    "</figcaption></figure></section>")
    if files:
        body.append(_files_section(files, labels))
    if unscored:
        side_label = dict(zip(("base", "new"), labels))  # the JSON's side, named as the headings name it
        items = "".join(
            f'<li data-side="{esc(u["side"])}" data-status="{esc(u["status"])}">{mark(False, "not compared")}'
            f'<span class="side">{esc(side_label.get(u["side"], u["side"]))}</span> {esc(u["status"])} <code>{esc(u["session"])}</code>'
            f' — {esc(u["reason"])}</li>'
            for u in unscored
        )
        body.append(f'<section id="not-compared"><h2>Not compared ({len(unscored)})</h2><ul>{items}</ul></section>')
    if other_arms:
        items = "".join(f"<li><code>{esc(o['session'])}</code>{_arm(o.get('arm'))}</li>" for o in other_arms)
        body.append(f'<section id="other-arms"><h2>Sessions of other arms, not compared ({len(other_arms)})</h2>'
                    f"<ul>{items}</ul></section>")
    body.append(diagnostics_section(list(diagnostics), lambda arm: f"Diagnostics — arm {arm}"))
    body.append(warnings_list(warnings))
    return document(title, "".join(body), "compare")


def _group_row(g: dict) -> str:
    ci = "—" if g["ci_low"] is None else f"[{points(g['ci_low'])}, {points(g['ci_high'])}]"
    return (
        f'<tr data-group="{esc(g["group"])}"><th scope="row">{esc(g["group"])}</th>'
        + cell("base_median", g["base_median"], pct(g["base_median"]))
        + cell("new_median", g["new_median"], pct(g["new_median"]))
        + cell("difference", g["difference"], points(g["difference"]))
        + f'<td class="num" data-field="ci" data-value="{value_attr(None if g["ci_low"] is None else [g["ci_low"], g["ci_high"]])}">{esc(ci)}</td>'
        + cell("base_n", g["base_n"], str(g["base_n"]))
        + f"<td class=runs>{_runs('base_runs', g['base_runs'])}</td>"
        + cell("new_n", g["new_n"], str(g["new_n"]))
        + f"<td class=runs>{_runs('new_runs', g['new_runs'])}</td>"
        + cell("base_not_scored", g["base_not_scored"], str(g["base_not_scored"]))
        + cell("new_not_scored", g["new_not_scored"], str(g["new_not_scored"]))
        + "</tr>"
    )


def _files_section(files: list[dict], labels) -> str:
    frows = [
        f'<tr data-group="{esc(f["group"])}" data-path="{esc(f["path"])}"><td>{esc(f["group"])}</td>'
        f"<td><code>{esc(f['path'])}</code></td>"
        + cell("base_share", f["base_share"], percent(f["base_share"]))
        + cell("new_share", f["new_share"], percent(f["new_share"]))
        + cell("delta", f["delta"], points(f["delta"]))
        + cell("base_chars", f["base_chars"], f"{f['base_chars']:,}")
        + cell("new_chars", f["new_chars"], f"{f['new_chars']:,}")
        + "</tr>"
        for f in files
    ]
    return (
        '<section id="files"><h2>Files whose envelope share moved most</h2>'
        "<p class=\"muted\">Pooled over the group's scored runs.</p>"
        + table(("group", "file", labels[0], labels[1], "moved (pp)", f"{labels[0]} chars", f"{labels[1]} chars"), frows,
                cls="sortable", numeric=(2, 3, 4, 5, 6))
        + "</section>"
    )


def _arm(label) -> str:
    return f" (arm {esc(label)})" if label else ""


def _harness(groups: list[dict], labels) -> str:
    """The harness's allocation lines (compare-arms.mjs), per group and arm: pooled, median [min–max]."""
    rows = []
    for g in groups:
        if g["group"] == "(all)" or "base_pooled" not in g:
            continue
        for side, label in zip(("base", "new"), labels):
            runs = g[f"{side}_runs"]
            spread = f"{pct(g[f'{side}_median'])} [{pct(min(runs))}–{pct(max(runs))}]" if runs else "—"
            rows.append(
                f'<tr data-group="{esc(g["group"])}" data-side="{side}"><td>{esc(g["group"])}</td><td>{esc(label)}</td>'
                + cell(f"{side}_pooled", g[f"{side}_pooled"], pct(g[f"{side}_pooled"]))
                + f'<td class="num">{esc(spread)}</td></tr>'
            )
    if not rows:
        return ""
    return (
        '<section id="harness"><h2>Harness view</h2><p class="muted">As compare-arms.mjs prints allocation.</p>'
        + table(("group", "arm", "pooled efficiency", "per-run efficiency, median [min–max]"), rows, numeric=(2, 3))
        + "</section>"
    )


def _behaviour(behaviour) -> str:
    """Per group, the arm table's runs, behaviour, occupancy and contamination rows (its cells)."""
    if not behaviour:
        return ""
    parts = []
    for name, arms in behaviour:
        rows = []
        for item in behaviour_items(arms, lambda label, cells: (label.strip(), cells)):
            if isinstance(item, tuple):
                if item[0]:  # the arms' labels are the table's head
                    rows.append(f'<tr><th scope="row">{esc(item[0])}</th>'
                                + "".join(f'<td class="num">{esc(c)}</td>' for c in item[1]) + "</tr>")
            elif item.strip():  # a block's title, or the contamination warning
                rows.append(f'<tr><th colspan="{len(arms) + 1}" class="block">{esc(item.strip())}</th></tr>')
        parts.append(f'<h3 data-group="{esc(name)}">{esc(name)}</h3>'
                     + table(("", *(label for label, _ in arms)), rows, cls="behaviour",
                             numeric=tuple(range(1, len(arms) + 1))))
    return ('<section id="behaviour"><h2>Behavior, occupancy and contamination</h2><p class="muted">As '
            "compare-arms.mjs prints them: median [min–max] over every session read, scored or not.</p>"
            + "".join(parts) + "</section>")


def _runs(name: str, values: list[float]) -> str:
    """Every run (the text output shows the first 8), in percent with one decimal."""
    shown = " ".join(to_fixed(v * 100, 1) for v in values) or "—"
    return f'<span class="mono" data-field="{name}" data-value="{value_attr(values)}">{esc(shown)}</span>'


def inline_svg(svg: bytes) -> str:
    """matplotlib's SVG document as an inline element: no XML prolog or doctype, and it shrinks to fit."""
    text = svg.decode("utf-8")
    text = text[text.index("<svg"):]
    return text.replace("<svg", '<svg role="img" aria-label="strip plot of every run" style="max-width:100%;height:auto"', 1)
