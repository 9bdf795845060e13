"""The diagnostic join: each explore call beside codegraph's own report of it.

Input besides the transcript: the explore diagnostic sidecar(s)
(core.readers.diagnostics). Each explore response of a session is matched to
a report by its tool_use's query, the response's length (the report's
`envelope.chars`, UTF-16 units) and the set of files it has sections for (the
report's files with a `render`); a sidecar holds the calls of many runs, so
only a fit that cannot be confused with another counts. Every call is listed
matched or not, and why. Then, per returned file, the verdict beside the
allocator's record, and the analyses the allocator's authors ask for:
uncited bytes by render mode and by flag, the citation rate by rank, share
of the envelope against share of the score, and files ranked but never
rendered that the answer cited anyway. Nothing here prints.
"""

from __future__ import annotations

import csv
import io
from typing import Iterable, Optional, Sequence

import attrs

from citeledger.core import Envelope, InputWarning, Origin, percent, thousands, to_fixed, utf16_len
from citeledger.core.readers.diagnostics import FLAGS, ExploreReport

MATCHED, UNMATCHED = "matched", "unmatched"


@attrs.frozen
class CallJoin:
    """One explore response and the report it was joined to (or why none)."""

    response: int  # 1-based, every explore response of the session
    call: Optional[int]  # its call number when it had sections
    tool_use_id: str
    query: Optional[str]
    chars: int  # the response's length, UTF-16 units
    status: str  # matched / unmatched
    reason: str
    origin: Optional[Origin] = None  # the response's tool_result
    report: Optional[ExploreReport] = attrs.field(default=None, repr=False)


@attrs.frozen
class FileRow:
    """One ranked file of a matched call: the allocator's record and the verdict."""

    session: str
    arm: str
    call: Optional[int]
    path: str
    rank: int
    score: float
    score_share: float  # score / sum of the report's scores
    graph_score: float
    term_hits: int
    flags: tuple[str, ...]
    render: Optional[str]
    skipped: Optional[str]
    clipped: bool
    allowance: Optional[int]
    final_chars: int
    share: float  # codegraph's: final chars / response chars
    chars: int  # citeledger's charge for the file's sections in this call
    envelope_share: float  # chars / the call's envelope
    cited: bool  # credited (rendered files) or cited by path (never rendered)
    channel: Optional[str]
    evidence: Optional[str]


@attrs.frozen
class SessionDiagnostics:
    session: str
    arm: str
    sidecars: tuple[str, ...]
    joins: tuple[CallJoin, ...]
    rows: tuple[FileRow, ...]


def _responses(transcript, ruleset):
    """The explore responses as the ruleset reads them (a BOM line may be unreadable)."""
    responses = transcript.responses
    if ruleset.reader.bom == "unreadable" and transcript.bom_lines:
        lost = set(transcript.bom_lines)
        responses = tuple(r for r in responses if r.origin not in lost and r.tool_use_origin not in lost)
    return responses


def _query(transcript, response) -> Optional[str]:
    found = None
    for use in transcript.tool_uses:
        if use.id == response.tool_use_id and use.order < response.order:
            found = use.query
    return found


def _fits(report: ExploreReport, lengths: tuple[int, ...], paths: frozenset) -> bool:
    if not report.files and report.note is not None:  # nothing found: envelope.chars is 0
        return not paths
    return report.chars in lengths and report.rendered == paths


def join_calls(transcript, ruleset, reports: Sequence[ExploreReport], sidecars: Sequence[str]) -> tuple[CallJoin, ...]:
    from citeledger.core import calls_of

    by_query: dict[str, list[ExploreReport]] = {}
    for r in reports:
        by_query.setdefault(r.query, []).append(r)
    used: set[int] = set()
    joins = []
    number = 0
    where = ", ".join(sidecars) or "no sidecar"
    for index, response in enumerate(_responses(transcript, ruleset), 1):
        cut = calls_of((response,), ruleset)
        call = None
        paths: frozenset = frozenset()
        if cut:
            number += 1
            call = number
            paths = frozenset(s.path for s in cut[0].sections if not s.meta)
        text = "".join(response.blocks)
        chars = utf16_len(text)
        # `codegraph explore` (the CLI) prints the response and one newline;
        # a transcript made from its output carries that newline, the report does not.
        lengths = (chars, chars - 1) if text.endswith("\n") else (chars,)
        query = _query(transcript, response)
        base = dict(response=index, call=call, tool_use_id=response.tool_use_id, query=query, chars=chars,
                    origin=response.origin)
        if query is None:
            joins.append(CallJoin(**base, status=UNMATCHED, reason="its tool_use has no query string"))
            continue
        candidates = by_query.get(query, [])
        if not candidates:
            joins.append(CallJoin(**base, status=UNMATCHED, reason=f"no report has this query ({len(reports)} report(s) in {where})"))
            continue
        fits = [r for r in candidates if _fits(r, lengths, paths)]
        if not fits:
            seen = ", ".join(f"line {r.origin.line}: {r.chars} chars, {len(r.rendered)} file(s)" for r in candidates[:4])
            joins.append(CallJoin(**base, status=UNMATCHED, reason=(
                f"{len(candidates)} report(s) with this query, none of this response's length ({chars} chars) "
                f"and files ({len(paths)}): {seen}")))
            continue
        distinct = list(dict.fromkeys(fits))  # equal reports (same call, another run) are one
        if len(distinct) > 1:
            lines = ", ".join(f"{r.origin.file}:{r.origin.line}" for r in fits[:4])
            joins.append(CallJoin(**base, status=UNMATCHED, reason=f"ambiguous: {len(distinct)} different reports fit ({lines})"))
            continue
        chosen = next((r for r in fits if id(r) not in used), fits[0])
        used.add(id(chosen))
        joins.append(CallJoin(**base, status=MATCHED, reason=f"{chosen.origin.file}:{chosen.origin.line}", report=chosen))
    return tuple(joins)


def _cited_by_path(ruleset, answer: str, never_rendered: Iterable[str], returned: Sequence[str]) -> dict:
    """path -> Finding for files never rendered, judged by the ruleset's path channel."""
    from citeledger.core import channels

    options = ruleset.options_for("path")
    paths = tuple(dict.fromkeys([*returned, *never_rendered]))
    if options is None or not answer:
        return {}
    findings = channels()["path"](options).judge(answer, Envelope((), paths))
    return {p: findings[p] for p in never_rendered}


def diagnose(transcript, score, ruleset, reports: Sequence[ExploreReport], sidecars: Sequence[str],
             arm: str = "") -> SessionDiagnostics:
    """Join one session's calls to the reports and lay each ranked file beside its verdict."""
    from citeledger.core import calls_of

    joins = join_calls(transcript, ruleset, reports, sidecars)
    verdicts = {f.path: f.verdict for f in score.files}
    calls = {c.number: c for c in calls_of(_responses(transcript, ruleset), ruleset)}
    skipped_paths = [f.path for j in joins if j.report for f in j.report.files
                     if f.render is None and f.path not in verdicts]
    by_path = _cited_by_path(ruleset, score.answer if score.has_answer else "", skipped_paths, tuple(verdicts))
    rows = []
    for j in joins:
        if j.report is None:
            continue
        call = calls.get(j.call) if j.call is not None else None
        envelope = sum(s.chars for s in call.sections) if call else 0
        charged: dict[str, int] = {}
        for s in (call.sections if call else ()):
            if not s.meta:
                charged[s.path] = charged.get(s.path, 0) + s.chars
        total_score = sum(f.score for f in j.report.files)
        for f in sorted(j.report.files, key=lambda f: f.rank):
            verdict = verdicts.get(f.path)
            if verdict is not None:  # returned by some call of the session: its verdict
                cited, channel, evidence = verdict.credited, verdict.channel, verdict.evidence
            else:
                finding = by_path.get(f.path)
                cited = bool(finding and finding.credited)
                channel, evidence = ("path", finding.evidence) if cited else (None, None)
            chars = charged.get(f.path, 0)
            rows.append(FileRow(
                score.name, arm, j.call, f.path, f.rank, f.score, f.score / total_score if total_score else 0.0,
                f.graph_score, f.term_hits, f.flags, f.render, f.skipped, f.clipped, f.allowance,
                f.final_chars, f.share, chars, chars / envelope if envelope else 0.0, cited, channel, evidence,
            ))
    return SessionDiagnostics(score.name, arm, tuple(sidecars), joins, tuple(rows))


def join_warnings(s: SessionDiagnostics) -> list[InputWarning]:
    """One warning per response no report was joined to, at the response's tool_result."""
    return [
        InputWarning(j.origin.file if j.origin else s.session, j.origin.line if j.origin else 0,
                     f"explore response {j.response} (tool_use {j.tool_use_id}) joined to no diagnostic report "
                     f"in {', '.join(s.sidecars)}: {j.reason}")
        for j in s.joins if j.status != MATCHED
    ]


# ---------------------------------------------------------------- analyses


def _rendered(rows):
    return [r for r in rows if r.render is not None and r.chars > 0]


def by_render(rows) -> list[dict]:
    """Per render mode: files, chars, uncited chars, and the uncited share."""
    out: dict[str, dict] = {}
    for r in _rendered(rows):
        slot = out.setdefault(r.render, {"render": r.render, "files": 0, "chars": 0, "uncited_files": 0, "uncited_chars": 0})
        slot["files"] += 1
        slot["chars"] += r.chars
        if not r.cited:
            slot["uncited_files"] += 1
            slot["uncited_chars"] += r.chars
    for slot in out.values():
        slot["uncited_share"] = slot["uncited_chars"] / slot["chars"] if slot["chars"] else 0.0
    return sorted(out.values(), key=lambda s: (-s["uncited_chars"], s["render"]))


def by_flag(rows) -> list[dict]:
    """Per ranking flag (a file counts under every flag it has; `(none)` when it has none)."""
    out: dict[str, dict] = {}
    for r in _rendered(rows):
        for flag in r.flags or ("(none)",):
            slot = out.setdefault(flag, {"flag": flag, "files": 0, "chars": 0, "uncited_files": 0, "uncited_chars": 0})
            slot["files"] += 1
            slot["chars"] += r.chars
            if not r.cited:
                slot["uncited_files"] += 1
                slot["uncited_chars"] += r.chars
    for slot in out.values():
        slot["uncited_share"] = slot["uncited_chars"] / slot["chars"] if slot["chars"] else 0.0
    order = {f: i for i, f in enumerate((*FLAGS, "(none)"))}
    return sorted(out.values(), key=lambda s: order.get(s["flag"], len(order)))


def by_rank(rows) -> list[dict]:
    """Per rank: files ranked, rendered, cited among the rendered, the rate; never-rendered cited anyway."""
    out: dict[int, dict] = {}
    for r in rows:
        slot = out.setdefault(r.rank, {"rank": r.rank, "ranked": 0, "rendered": 0, "cited": 0, "not_rendered_cited": 0})
        slot["ranked"] += 1
        if r.render is not None and r.chars > 0:
            slot["rendered"] += 1
            slot["cited"] += r.cited
        elif r.cited:
            slot["not_rendered_cited"] += 1
    for slot in out.values():
        slot["citation_rate"] = slot["cited"] / slot["rendered"] if slot["rendered"] else None
    return [out[k] for k in sorted(out)]


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1  # ties share their mean rank
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> Optional[float]:
    """Spearman's rank correlation (Pearson on mean ranks); None below 3 points or with no spread."""
    if len(xs) < 3:
        return None
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else None


def relevance(rows) -> dict:
    """Does relevance drive allocation? Envelope share against score share of the rendered files."""
    shown = _rendered(rows)

    def mean(values):
        values = list(values)
        return sum(values) / len(values) if values else None

    cited = [r for r in shown if r.cited]
    uncited = [r for r in shown if not r.cited]
    return {
        "files": len(shown),
        "spearman": spearman([r.score_share for r in shown], [r.envelope_share for r in shown]),
        "cited_files": len(cited),
        "cited_mean_score_share": mean(r.score_share for r in cited),
        "cited_mean_envelope_share": mean(r.envelope_share for r in cited),
        "uncited_files": len(uncited),
        "uncited_mean_score_share": mean(r.score_share for r in uncited),
        "uncited_mean_envelope_share": mean(r.envelope_share for r in uncited),
    }


def never_rendered_cited(rows) -> list[FileRow]:
    return [r for r in rows if (r.render is None or r.chars == 0) and r.cited]


def summary(sessions: Sequence[SessionDiagnostics]) -> dict:
    """The analyses over some sessions' rows (one session, a sweep, or one arm)."""
    rows = [r for s in sessions for r in s.rows]
    joins = [j for s in sessions for j in s.joins]
    return {
        "sessions": len(sessions),
        "responses": len(joins),
        "matched": sum(1 for j in joins if j.status == MATCHED),
        "unmatched": sum(1 for j in joins if j.status != MATCHED),
        "by_render": by_render(rows),
        "by_flag": by_flag(rows),
        "by_rank": by_rank(rows),
        "relevance": relevance(rows),
        "never_rendered_cited": [_row_dict(r) for r in never_rendered_cited(rows)],
    }


# ---------------------------------------------------------------- renderings


def _row_dict(r: FileRow) -> dict:
    d = attrs.asdict(r)
    d["flags"] = list(r.flags)
    return d


def session_dict(s: SessionDiagnostics) -> dict:
    return {
        "session": s.session, "arm": s.arm, "sidecars": list(s.sidecars),
        "calls": [
            {"response": j.response, "call": j.call, "tool_use_id": j.tool_use_id, "query": j.query,
             "chars": j.chars, "status": j.status, "reason": j.reason,
             "file": j.origin.file if j.origin else None, "line": j.origin.line if j.origin else None}
            for j in s.joins
        ],
        "files": [_row_dict(r) for r in s.rows],
    }


CSV_COLUMNS = tuple(a.name for a in attrs.fields(FileRow))


def rows_csv(sessions: Sequence[SessionDiagnostics]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_COLUMNS)
    for s in sessions:
        for r in s.rows:
            values = []
            for name in CSV_COLUMNS:
                v = getattr(r, name)
                values.append(" ".join(v) if isinstance(v, tuple) else "" if v is None else v)
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
                f"{percent(r.envelope_share):>6} {r.chars:>6}  {render:<10} {','.join(r.flags) or '-'}  {r.path}  {verdict}"
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
    for r in cited:
        lines.append(f"    {r['session']} call {r['call']}: {r['path']} (rank {r['rank']}, {r['skipped'] or 'not rendered'}) — {r['evidence']}")
    return "\n".join(lines) + "\n"


def plot(sessions: Sequence[SessionDiagnostics], title: str = "") -> dict[str, bytes]:
    """Share of the envelope against share of the score, one dot per rendered file: cited and uncited marked."""
    from citeledger.report.plot import figure, images

    rows = _rendered([r for s in sessions for r in s.rows])
    fig, ax = figure(5.2, 4.6)
    for cited, colour, marker, label in ((True, "#2ca02c", "o", "cited"), (False, "#d62728", "x", "uncited")):
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
