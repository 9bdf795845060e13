"""The diagnostic join: each explore call beside codegraph's own report of it.

Input besides the transcript: the explore diagnostic sidecar(s)
(harness.diagnostics). Each explore response of a session is matched to
a report by its tool_use's query, the response's length (the report's
`envelope.chars`, UTF-16 units) and the set of files it has sections for (the
report's files with a `render`); a sidecar holds the calls of many runs, so
only a fit that cannot be confused with another counts. Every call is listed
matched or not, and why. Then, per returned file, the verdict beside the
allocator's record, and the analyses the allocator's authors ask for:
uncited bytes by render mode and by flag, the citation rate by rank, share
of the envelope against share of the score, and files ranked but never
rendered that the answer cited anyway (report/allocation.py; text, JSON, CSV
and the plot in report/diagnostics_views.py). Nothing here prints.
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

import attrs

from citeledger.core import Envelope, InputWarning, Origin, explore_queries, spent, starved_paths, utf16_len
from citeledger.core import ExploreReport

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
    cited: bool  # credited (rendered files), or credited from the answer alone (never rendered)
    channel: Optional[str]
    evidence: Optional[str]
    spent: Optional[float] = None  # final_chars / allowance (probe-file-spend.mjs); None: no reservation
    starved: bool = False  # the starved side of a starvation pair in this call (harness/spend.py)


@attrs.frozen
class SessionDiagnostics:
    session: str
    arm: str
    sidecars: tuple[str, ...]
    joins: tuple[CallJoin, ...]
    rows: tuple[FileRow, ...]


def _fits(report: ExploreReport, lengths: tuple[int, ...], paths: frozenset) -> bool:
    if not report.files and report.note is not None:  # nothing found: envelope.chars is 0
        return not paths
    # A file `dropped` by the hard ceiling may have lost its header with its
    # source; every other rendered file has a section, and no other file has.
    kept = frozenset(f.path for f in report.files if f.render not in (None, "dropped"))
    return report.chars in lengths and kept <= paths <= report.rendered


def join_calls(transcript, score, ruleset, reports: Sequence[ExploreReport],
               sidecars: Sequence[str]) -> tuple[CallJoin, ...]:
    """Each explore response joined to its report, its sections those `score` (the transcript's
    under `ruleset`) cut: `call` counts the responses that had a section, as the harness does."""
    from citeledger.core import readable_responses

    cut = cut_by_response(score)

    by_query: dict[str, list[ExploreReport]] = {}
    for r in reports:
        by_query.setdefault(r.query, []).append(r)
    used: set[int] = set()
    joins = []
    number = 0
    where = ", ".join(sidecars) or "no sidecar"
    responses = readable_responses(transcript, ruleset)
    queries = explore_queries(transcript.tool_uses, responses)
    for index, (response, query) in enumerate(zip(responses, queries), 1):
        call = None
        paths: frozenset = frozenset()
        if index - 1 in cut:
            number += 1
            call = number
            paths = frozenset(s.path for s in cut[index - 1].sections if not s.meta)
        text = "".join(response.blocks)
        chars = utf16_len(text)
        # `codegraph explore` (the CLI) prints the response and one newline;
        # a transcript made from its output carries that newline, the report does not.
        lengths = (chars, chars - 1) if text.endswith("\n") else (chars,)
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


def _cited_anyway(ruleset, answer: str, never_rendered: Iterable[str], returned: Sequence[str]) -> dict:
    """path -> crediting Finding for files never rendered, as the ruleset's channels judge
    them with no section of theirs: in rank order, the first credit wins (the verdict rule)."""
    from citeledger.core import channels

    if not answer or not never_rendered:
        return {}
    installed = channels()
    paths = tuple(dict.fromkeys([*returned, *never_rendered]))
    envelope = Envelope((), paths)
    found: dict = {}
    for rule in ruleset.channels:
        findings = installed[rule.name](rule.options).judge(answer, envelope)
        for p in never_rendered:
            if p not in found and findings[p].credited:
                found[p] = findings[p]
    return found


def cut_by_response(score) -> dict:
    """The score's explore calls by their response's index (core.Call.response)."""
    return {c.response: c for c in score.cut if c.response >= 0}


def diagnose(transcript, score, ruleset, reports: Sequence[ExploreReport], sidecars: Sequence[str],
             arm: str = "") -> SessionDiagnostics:
    """Join one session's calls to the reports and lay each ranked file beside its verdict."""
    joins = join_calls(transcript, score, ruleset, reports, sidecars)
    verdicts = {f.path: f.verdict for f in score.files}
    cut = cut_by_response(score)
    skipped_paths = [f.path for j in joins if j.report for f in j.report.files
                     if f.render is None and f.path not in verdicts]
    anyway = _cited_anyway(ruleset, score.answer if score.has_answer else "", skipped_paths, tuple(verdicts))
    rows = []
    for j in joins:
        if j.report is None:
            continue
        call = cut.get(j.response - 1) if j.call is not None else None
        envelope = sum(s.chars for s in call.sections) if call else 0
        charged: dict[str, int] = {}
        for s in (call.sections if call else ()):
            if not s.meta:
                charged[s.path] = charged.get(s.path, 0) + s.chars
        total_score = sum(f.score for f in j.report.files)
        starved = starved_paths(j.report.files)
        for f in sorted(j.report.files, key=lambda f: f.rank):
            verdict = verdicts.get(f.path)
            if verdict is not None:  # returned by some call of the session: its verdict
                cited, channel, evidence = verdict.credited, verdict.channel, verdict.evidence
            else:
                finding = anyway.get(f.path)
                cited = finding is not None
                channel, evidence = (finding.channel, finding.evidence) if cited else (None, None)
            chars = charged.get(f.path, 0)
            rows.append(FileRow(
                session=score.name, arm=arm, call=j.call, path=f.path, rank=f.rank, score=f.score,
                score_share=f.score / total_score if total_score else 0.0, graph_score=f.graph_score,
                term_hits=f.term_hits, flags=f.flags, render=f.render, skipped=f.skipped, clipped=f.clipped,
                allowance=f.allowance, final_chars=f.final_chars, share=f.share, chars=chars,
                envelope_share=chars / envelope if envelope else 0.0, cited=cited, channel=channel,
                evidence=evidence, spent=spent(f), starved=f.path in starved,
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
