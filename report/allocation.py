"""What the diagnostic join says about the allocator: analyses over joined rows.

Rows are report.diagnostics.FileRow (one per ranked file of a matched call),
from one session, a sweep or one arm. Bytes are citeledger's section charges.
"""

from __future__ import annotations

from array import array
from typing import Optional, Sequence

from citeledger.core import FLAGS
from citeledger.report.diagnostics import MATCHED, FileRow, SessionDiagnostics


def _shown(r) -> bool:
    return r.render is not None and r.chars > 0


def rendered(rows):
    return [r for r in rows if _shown(r)]


def _uncited_slot(out: dict, field: str, label, r) -> None:
    """Count one rendered row under `label`: files, chars, uncited files and chars."""
    slot = out.setdefault(label, {field: label, "files": 0, "chars": 0, "uncited_files": 0, "uncited_chars": 0})
    slot["files"] += 1
    slot["chars"] += r.chars
    if not r.cited:
        slot["uncited_files"] += 1
        slot["uncited_chars"] += r.chars


def _uncited_shares(out: dict) -> list[dict]:
    slots = [dict(slot) for slot in out.values()]
    for slot in slots:
        slot["uncited_share"] = slot["uncited_chars"] / slot["chars"] if slot["chars"] else 0.0
    return slots


def _sorted_by_render(out: dict) -> list[dict]:
    return sorted(_uncited_shares(out), key=lambda s: (-s["uncited_chars"], s["render"]))


def _sorted_by_flag(out: dict) -> list[dict]:
    order = {f: i for i, f in enumerate((*FLAGS, "(none)"))}
    return sorted(_uncited_shares(out), key=lambda s: order.get(s["flag"], len(order)))


def _rank_slot(out: dict, r) -> None:
    slot = out.setdefault(r.rank, {"rank": r.rank, "ranked": 0, "rendered": 0, "cited": 0, "not_rendered_cited": 0})
    slot["ranked"] += 1
    if _shown(r):
        slot["rendered"] += 1
        slot["cited"] += r.cited
    elif r.cited:
        slot["not_rendered_cited"] += 1


def _rank_rates(out: dict) -> list[dict]:
    slots = [dict(out[k]) for k in sorted(out)]
    for slot in slots:
        slot["citation_rate"] = slot["cited"] / slot["rendered"] if slot["rendered"] else None
    return slots


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


def _mean(values: list) -> Optional[float]:
    # sum() itself, over the values in row order: its float rounding differs by Python version (3.12
    # compensates), so the same call gives the same number as before on every version.
    return sum(values) / len(values) if values else None


class Pooled:
    """`summary` built as sessions arrive: counts and sums, and what no sum can stand for.

    What it keeps grows only with what the summary itself holds: per rendered
    file its two shares (8 bytes each, in arrays: Spearman ranks them all) and
    whether it was cited (1 byte); and the rows of files never rendered but
    cited (the summary lists them all). The means are sum() over the same
    shares in the same order as over whole rows, so every number is the same.
    """

    def __init__(self):
        self.sessions = self.responses = self.matched = 0
        self._render: dict = {}
        self._flag: dict = {}
        self._rank: dict = {}
        self._score_shares = array("d")  # rendered files, in row order
        self._envelope_shares = array("d")
        self._cited = array("b")  # 1 where that rendered file was cited
        self._never_rendered_cited: list[dict] = []

    def add(self, s: SessionDiagnostics) -> None:
        self.sessions += 1
        for j in s.joins:
            self.responses += 1
            self.matched += j.status == MATCHED
        for r in s.rows:
            self.add_row(r)

    def add_row(self, r) -> None:
        _rank_slot(self._rank, r)
        if _shown(r):
            _uncited_slot(self._render, "render", r.render, r)
            for flag in r.flags or ("(none)",):
                _uncited_slot(self._flag, "flag", flag, r)
            self._score_shares.append(r.score_share)
            self._envelope_shares.append(r.envelope_share)
            self._cited.append(1 if r.cited else 0)
        elif r.cited:
            self._never_rendered_cited.append(row_dict(r))

    def relevance(self) -> dict:
        def shares(values, cited: int) -> list:
            return [v for v, c in zip(values, self._cited) if c == cited]

        cited = sum(self._cited)
        return {
            "files": len(self._score_shares),
            "spearman": spearman(self._score_shares, self._envelope_shares),
            "cited_files": cited,
            "cited_mean_score_share": _mean(shares(self._score_shares, 1)),
            "cited_mean_envelope_share": _mean(shares(self._envelope_shares, 1)),
            "uncited_files": len(self._cited) - cited,
            "uncited_mean_score_share": _mean(shares(self._score_shares, 0)),
            "uncited_mean_envelope_share": _mean(shares(self._envelope_shares, 0)),
        }

    def dict(self) -> dict:
        return {
            "sessions": self.sessions,
            "responses": self.responses,
            "matched": self.matched,
            "unmatched": self.responses - self.matched,
            "by_render": _sorted_by_render(self._render),
            "by_flag": _sorted_by_flag(self._flag),
            "by_rank": _rank_rates(self._rank),
            "relevance": self.relevance(),
            "never_rendered_cited": [dict(d) for d in self._never_rendered_cited],
        }


def summary(sessions: Sequence[SessionDiagnostics]) -> dict:
    """The analyses over some sessions' rows (one session, a sweep, or one arm)."""
    pool = Pooled()
    for s in sessions:
        pool.add(s)
    return pool.dict()


def row_dict(r: FileRow) -> dict:
    import attrs

    d = attrs.asdict(r)
    d["flags"] = list(r.flags)
    return d
