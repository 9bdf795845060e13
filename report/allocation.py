"""What the diagnostic join says about the allocator: analyses over joined rows.

Rows are report.diagnostics.FileRow (one per ranked file of a matched call),
from one session, a sweep or one arm. Bytes are citeledger's section charges.
"""

from __future__ import annotations

from typing import Optional, Sequence

from citeledger.core.readers.diagnostics import FLAGS
from citeledger.report.diagnostics import MATCHED, FileRow, SessionDiagnostics


def rendered(rows):
    return [r for r in rows if r.render is not None and r.chars > 0]


def _uncited_by(rows, field: str, labels_of) -> list[dict]:
    """Files, chars and uncited chars per label (`labels_of(row)`: the labels a row counts under)."""
    out: dict[str, dict] = {}
    for r in rendered(rows):
        for label in labels_of(r):
            slot = out.setdefault(label, {field: label, "files": 0, "chars": 0, "uncited_files": 0, "uncited_chars": 0})
            slot["files"] += 1
            slot["chars"] += r.chars
            if not r.cited:
                slot["uncited_files"] += 1
                slot["uncited_chars"] += r.chars
    for slot in out.values():
        slot["uncited_share"] = slot["uncited_chars"] / slot["chars"] if slot["chars"] else 0.0
    return list(out.values())


def by_render(rows) -> list[dict]:
    """Per render mode: files, chars, uncited chars, and the uncited share."""
    return sorted(_uncited_by(rows, "render", lambda r: (r.render,)), key=lambda s: (-s["uncited_chars"], s["render"]))


def by_flag(rows) -> list[dict]:
    """Per ranking flag (a file counts under every flag it has; `(none)` when it has none)."""
    found = _uncited_by(rows, "flag", lambda r: r.flags or ("(none)",))
    order = {f: i for i, f in enumerate((*FLAGS, "(none)"))}
    return sorted(found, key=lambda s: order.get(s["flag"], len(order)))


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
    shown = rendered(rows)

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
        "never_rendered_cited": [row_dict(r) for r in never_rendered_cited(rows)],
    }


def row_dict(r: FileRow) -> dict:
    import attrs

    d = attrs.asdict(r)
    d["flags"] = list(r.flags)
    return d
