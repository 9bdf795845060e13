"""The explore diagnostic join as a page section, rendered from the records `--json` prints.

`records` are cli.sidecars.Diagnosed.records(): one `diagnostics` record per
arm (report.allocation.summary plus the sidecars and the sessions without
one) and one `diagnostics-session` record per joined session. The text's
"Diagnostics — arm ..." blocks say the same things, from the same dicts;
the page lists in full what the text caps.
"""

from __future__ import annotations

from typing import Callable, Optional

from citeledger.core import thousands, to_fixed
from citeledger.report.html.page import cell, esc, field, pct, swatch, table, value_attr


def diagnostics_section(records: list[dict], title_of: Callable[[str], str]) -> str:
    """`title_of(arm)`: each summary's heading, as the text heads its block."""
    summaries = [r for r in records if r["record"] == "diagnostics"]
    if not summaries:
        return ""
    sessions = [r for r in records if r["record"] == "diagnostics-session"]
    parts = ['<section id="diagnostics"><h2>Explore diagnostics</h2>'
             "<p class=\"muted\">Each explore call joined to codegraph's diagnostic report of it (the sidecars "
             "below): how the bytes of rendered files split between cited and uncited, per render mode, flag "
             "and rank. Shares and counts are over rendered files; a file counts under each of its flags.</p>"]
    parts += [_summary(s, title_of(s["arm"])) for s in summaries]
    unmatched = [(s["session"], c) for s in sessions for c in s["calls"] if c["status"] != "matched"]
    if unmatched:
        items = "".join(
            f'<li data-session="{esc(session)}" data-response="{esc(c["response"])}"><code>{esc(session)}</code> '
            f'response {esc(c["response"])}: {esc(c["reason"])}</li>'
            for session, c in unmatched
        )
        parts.append(f'<h3>Responses joined to no report ({len(unmatched)})</h3><ul class="paths">{items}</ul>')
    first = summaries[0]
    without = first["sessions_without_sidecar"]
    if without:
        counts = ", ".join(f"{n} of arm {esc(a)}" if a else str(n) for a, n in without.items())
        parts.append(f'<p data-field="sessions_without_sidecar" data-value="{value_attr(without)}">'
                     f"Sessions without a diagnostic sidecar (not joined): {counts}</p>")
    names = "".join(f"<li><code>{esc(p)}</code></li>" for p in first["sidecars"])
    parts.append(f'<h3>Sidecars ({len(first["sidecars"])})</h3><ul class="paths">{names}</ul></section>')
    return "".join(parts)


def _rank_table(by_rank: list) -> str:
    if not by_rank:
        return ""
    rows = [
        f'<tr data-rank="{r["rank"]}">' + cell("rank", r["rank"], str(r["rank"]))
        + cell("cited", r["cited"], str(r["cited"]))
        + cell("rendered", r["rendered"], str(r["rendered"]))
        + cell("citation_rate", r["citation_rate"], pct(r["citation_rate"]))
        + cell("ranked", r["ranked"], str(r["ranked"]))
        + cell("not_rendered_cited", r["not_rendered_cited"], str(r["not_rendered_cited"]))
        + "</tr>"
        for r in by_rank
    ]
    return table(("rank", "cited", "rendered", "citation rate", "ranked", "never rendered but cited"), rows,
                 caption="citation rate by rank (rendered files)", cls="diag by_rank", numeric=(0, 1, 2, 3, 4, 5))


def _relevance(rel: dict) -> str:
    if not rel["files"]:
        return ""
    rows = [
        f'<tr data-cited="{side}"><th scope="row">{side}</th>'
        + cell(f"{side}_files", rel[f"{side}_files"], str(rel[f"{side}_files"]))
        + cell(f"{side}_mean_score_share", rel[f"{side}_mean_score_share"], pct(rel[f"{side}_mean_score_share"]))
        + cell(f"{side}_mean_envelope_share", rel[f"{side}_mean_envelope_share"],
               pct(rel[f"{side}_mean_envelope_share"]))
        + "</tr>"
        for side in ("cited", "uncited")
    ]
    return (
        '<p class="relevance">Does relevance drive allocation? Spearman(score share, envelope share) = '
        + field("spearman", rel["spearman"], _fixed(rel["spearman"]))
        + f' over {field("files", rel["files"], str(rel["files"]))} rendered files</p>'
        + table(("files", "count", "mean score share", "mean envelope share"), rows, cls="diag relevance",
                numeric=(1, 2, 3))
    )


def _summary(s: dict, title: str) -> str:
    arm = esc(s["arm"])
    out = [
        f'<section class="diagnostics" data-arm="{arm}"><h3>{esc(title)}</h3>'
        f'<p>{field("matched", s["matched"], str(s["matched"]))}/{field("responses", s["responses"], str(s["responses"]))}'
        f' response(s) matched over {field("sessions", s["sessions"], str(s["sessions"]))} session(s)</p>'
    ]
    for key, name, caption in (("by_render", "render", "uncited bytes by render mode"),
                               ("by_flag", "flag", "uncited bytes by flag (a file counts under each of its flags)")):
        if s[key]:
            rows = [
                f'<tr data-{name}="{esc(r[name])}"><th scope="row">{esc(r[name])}</th>'
                + cell("uncited_files", r["uncited_files"], str(r["uncited_files"]))
                + cell("files", r["files"], str(r["files"]))
                + cell("uncited_chars", r["uncited_chars"], thousands(r["uncited_chars"]))
                + cell("chars", r["chars"], thousands(r["chars"]))
                + cell("uncited_share", r["uncited_share"], pct(r["uncited_share"]))
                + "</tr>"
                for r in s[key]
            ]
            out.append(table((name, "uncited files", "files", "uncited chars", "chars", "uncited share"), rows,
                             caption=caption, cls=f"diag {key}", numeric=(1, 2, 3, 4, 5)))
    out.append(_rank_table(s["by_rank"]))
    out.append(_relevance(s["relevance"]))
    cited = s["never_rendered_cited"]
    items = "".join(
        f'<li data-session="{esc(r["session"])}" data-call="{esc(r["call"])}" data-path="{esc(r["path"])}">'
        f'<code>{esc(r["session"])}</code> call {esc(r["call"])}: <code>{esc(r["path"])}</code> '
        f'(rank {esc(r["rank"])}, {esc(r["skipped"] or "not rendered")}) — '
        f'{swatch(r["channel"]) if r["channel"] else ""}{esc(r["evidence"])}</li>'
        for r in cited
    )
    out.append(f'<p>Ranked but not rendered (in that call), cited anyway: '
               f'{field("never_rendered_cited", len(cited), str(len(cited)))}</p>'
               + (f'<ul class="paths cited-anyway">{items}</ul>' if cited else ""))
    out.append("</section>")
    return "".join(out)


def _fixed(value: Optional[float]) -> str:
    return "—" if value is None else to_fixed(value, 2)
