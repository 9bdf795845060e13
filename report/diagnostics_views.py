"""The diagnostic join as text, JSON-ready dicts, CSV and a plot (bytes; the command writes them)."""

from __future__ import annotations

import io
from typing import Sequence

import attrs

from citeledger.core import percent, printable, thousands, to_fixed
from citeledger.report.allocation import rendered, row_dict
from citeledger.report.diagnostics import MATCHED, FileRow, SessionDiagnostics
from citeledger.report.tables import LISTED, CsvWriter, csv_value, more


def session_dict(s: SessionDiagnostics) -> dict:
    return {
        "session": s.session, "arm": s.arm, "sidecars": list(s.sidecars),
        "calls": [
            {"response": j.response, "call": j.call, "tool_use_id": j.tool_use_id, "query": j.query,
             "chars": j.chars, "status": j.status, "reason": j.reason,
             "file": j.origin.file if j.origin else None, "line": j.origin.line if j.origin else None}
            for j in s.joins
        ],
        "files": [row_dict(r) for r in s.rows],
    }


CSV_COLUMNS = tuple(a.name for a in attrs.fields(FileRow))


def rows_csv(sessions: Sequence[SessionDiagnostics]) -> str:
    buf = io.StringIO()
    w = CsvWriter(buf)
    w.writerow(CSV_COLUMNS)
    for s in sessions:
        for r in s.rows:
            values = []
            for name in CSV_COLUMNS:
                v = getattr(r, name)
                values.append(csv_value(v))
            w.writerow(values)
    return buf.getvalue()


def _pct(v) -> str:
    return "—" if v is None else percent(v)


def _num(v) -> str:
    return "—" if v is None else to_fixed(v, 2)


def render_joins(s: SessionDiagnostics) -> str:
    matched = sum(1 for j in s.joins if j.status == MATCHED)
    lines = [f"Explore diagnostics — {s.session}{f' [{s.arm}]' if s.arm else ''}: "
             f"{matched}/{len(s.joins)} response(s) matched in {', '.join(s.sidecars) or 'no sidecar'}"]
    for j in s.joins:
        what = f"call {j.call}" if j.call is not None else "no sections"
        q = (j.query or "")[:60]
        lines.append(f"  response {j.response} ({what}, {thousands(j.chars)} chars, {q!r}): {j.status} — {j.reason}")
    by_call: dict = {}
    for r in s.rows:
        by_call.setdefault(r.call, []).append(r)
    for call, rows in by_call.items():
        lines.append(f"  call {call if call is not None else '—'}:  rank  score  score%  env%   chars  render     flags  verdict")
        for r in rows:
            verdict = (f"{r.channel} {r.evidence}" if r.cited else "—")
            render = r.render or f"({r.skipped or 'not rendered'})"
            lines.append(
                f"    {'*' if r.cited else ' '} {r.rank:>4} {to_fixed(r.score, 1):>6} {percent(r.score_share):>7} "
                f"{percent(r.envelope_share):>6} {r.chars:>6}  {render:<10} {','.join(r.flags) or '-'}  {printable(r.path)}  {verdict}"
            )
    return "\n".join(lines) + "\n"


def render_summary(summary: dict, title: str) -> str:
    lines = [f"{title}: {summary['matched']}/{summary['responses']} response(s) matched over {summary['sessions']} session(s)"]
    if summary["by_render"]:
        lines.append("  uncited bytes by render mode:")
        for s in summary["by_render"]:
            lines.append(f"    {s['render']:<14} {s['uncited_files']:>3}/{s['files']:<3} files  "
                         f"{thousands(s['uncited_chars']):>8} of {thousands(s['chars']):>8} chars uncited ({_pct(s['uncited_share'])})")
    if summary["by_flag"]:
        lines.append("  uncited bytes by flag (a file counts under each of its flags):")
        for s in summary["by_flag"]:
            lines.append(f"    {s['flag']:<14} {s['uncited_files']:>3}/{s['files']:<3} files  "
                         f"{thousands(s['uncited_chars']):>8} of {thousands(s['chars']):>8} chars uncited ({_pct(s['uncited_share'])})")
    if summary["by_rank"]:
        lines.append("  citation rate by rank (rendered files):")
        for s in summary["by_rank"]:
            extra = f", {s['not_rendered_cited']} never rendered but cited" if s["not_rendered_cited"] else ""
            lines.append(f"    rank {s['rank']:>2}: {s['cited']}/{s['rendered']} cited ({_pct(s['citation_rate'])}), "
                         f"{s['ranked']} ranked{extra}")
    rel = summary["relevance"]
    if rel["files"]:
        lines.append(
            f"  does relevance drive allocation? Spearman(score share, envelope share) = {_num(rel['spearman'])} "
            f"over {rel['files']} rendered files"
        )
        lines.append(
            f"    cited   {rel['cited_files']:>3} files: mean score share {_pct(rel['cited_mean_score_share'])}, "
            f"mean envelope share {_pct(rel['cited_mean_envelope_share'])}"
        )
        lines.append(
            f"    uncited {rel['uncited_files']:>3} files: mean score share {_pct(rel['uncited_mean_score_share'])}, "
            f"mean envelope share {_pct(rel['uncited_mean_envelope_share'])}"
        )
    cited = summary["never_rendered_cited"]
    lines.append(f"  ranked but not rendered (in that call), cited anyway: {len(cited)}")
    for r in cited[:LISTED]:
        lines.append(f"    {r['session']} call {r['call']}: {r['path']} (rank {r['rank']}, {r['skipped'] or 'not rendered'}) — {r['evidence']}")
    return "\n".join(lines) + "\n" + more(len(cited) - LISTED, "    ")


def plot(sessions: Sequence[SessionDiagnostics], title: str = "") -> dict[str, bytes]:
    """Share of the envelope against share of the score, one dot per rendered file: cited and uncited marked."""
    from citeledger.report.palette import CITED, UNCITED
    from citeledger.report.plot import figure, images

    rows = rendered([r for s in sessions for r in s.rows])
    fig, ax = figure(5.2, 4.6)
    for cited, colour, marker, label in ((True, CITED, "o", "cited"), (False, UNCITED, "x", "uncited")):
        pts = [r for r in rows if r.cited == cited]
        ax.scatter([100 * r.score_share for r in pts], [100 * r.envelope_share for r in pts],
                   s=22, color=colour, marker=marker, label=f"{label} ({len(pts)})", zorder=3)
    ax.plot([0, 100], [0, 100], color="#999", linewidth=0.8, linestyle="--", zorder=1)
    ax.set_xlabel("share of the call's relevance score (%)")
    ax.set_ylabel("share of the call's envelope (%)")
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 102)
    ax.grid(alpha=0.3)
    ax.set_title(title or "does relevance drive allocation?", fontsize="medium")
    ax.legend(loc="best", fontsize="small")
    return images(fig)
