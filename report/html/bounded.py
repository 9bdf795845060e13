"""What a session page shows of a session: a bounded part of score's JSON dict.

A session page is read by a person and must stay a page whatever the
transcript holds (one Glob of 100,000 paths, 2,000 explore calls): as the
sweep page lists a session's top files, the session page lists the largest
CALLS calls, the largest SECTIONS sections of each, the largest FILES files
(and up to FILES credited files beyond them, so the answer's citations keep
their links), the ENVELOPE_FILES largest files of the envelope view and the
first WARNINGS warnings; each table says how many rows it left out and their
chars (docs/robustness.md, "A session page is bounded"). Every number shown
is made by report.jsonreport's own record builders, so it is score --json's;
nothing unbounded is built on the way (no dict of every file or section).
"""

from __future__ import annotations

import heapq

from citeledger.report.jsonreport import call_dict, file_dict, session_head, source_of_calls

CALLS = 100  # explore calls drawn, the largest by envelope chars, in call order
SECTIONS = 20  # sections listed per call, the largest by chars, in response order
FILES = 200  # pooled files listed, the largest (score's order)
ENVELOPE_FILES = 200  # rows of the envelope view, the largest
WARNINGS = 500  # input warnings listed, the first


def largest(sizes, count: int) -> list[int]:
    """The indices of the `count` largest of `sizes` (the earlier first among equals), in order."""
    if len(sizes) <= count:
        return list(range(len(sizes)))
    return sorted(heapq.nsmallest(count, range(len(sizes)), key=lambda i: (-sizes[i], i)))


def rest(count: int, chars: int, credited: int) -> dict:
    return {"count": count, "chars": chars, "credited": credited}


def page_dict(score) -> dict:
    """score's JSON dict (explain=True) cut to what a page shows; `*_more` say what was left out."""
    out = session_head(score)
    warnings = out["warnings"]
    out["warnings"], out["warnings_more"] = warnings[:WARNINGS], max(0, len(warnings) - WARNINGS)
    out["calls"], out["calls_more"] = _calls(score)
    out["files"], out["files_more"] = _files(score)
    return out


def _calls(score) -> tuple[list[dict], dict]:
    calls = score.calls
    shown = largest([c.envelope for c in calls], CALLS)
    verdicts = {f.path: f.verdict for f in score.files}
    via = source_of_calls(score)
    queries = score.queries or (None,) * len(calls)
    out = []
    for i in shown:
        call = calls[i]
        sections = largest([c for _, c in call.files], SECTIONS)
        record = call_dict(score, call, queries[i], verdicts, via, sections)
        for k, row in zip(sections, record["files"]):
            row["section"] = k + 1  # its place in the response
        left = set(range(len(call.files))) - set(sections)
        record["files_more"] = rest(len(left), sum(call.files[k][1] for k in left),
                                    sum(1 for k in left if verdicts[call.files[k][0]].channel is not None))
        out.append(record)
    left = set(range(len(calls))) - set(shown)
    return out, {"count": len(left), "envelope": sum(calls[i].envelope for i in left),
                 "used": sum(calls[i].used for i in left)}


def _files(score) -> tuple[list[dict], dict]:
    files = score.files  # score's order: the largest first
    credited_beyond = [i for i in range(FILES, len(files)) if files[i].verdict.channel is not None][:FILES]
    shown = list(range(min(FILES, len(files)))) + credited_beyond
    out = []
    for i in shown:
        row = file_dict(score, files[i], explain=True)
        row["rank"] = i + 1
        out.append(row)
    left = len(files) - len(shown)
    chars = sum(f.chars for f in files) - sum(files[i].chars for i in shown)
    credited = score.files_used - sum(1 for i in shown if files[i].verdict.channel is not None)
    return out, rest(left, chars, credited)


def views_dict(view) -> dict:
    """The envelope view and answer set (SessionResult.views) cut to the page's bound."""
    from citeledger.report.envelope import answer_set_dict, envelope_dict

    if not view:
        return {}
    shown = envelope_dict(view, limit=ENVELOPE_FILES)  # view.files: the largest first
    left = view.files[ENVELOPE_FILES:]
    shown["files_more"] = {"count": len(left), "chars": sum(f.chars for f in left),
                           "in_answer_set": sum(1 for f in left if f.in_answer)}
    out = {"envelope_view": shown}
    if view.globs:
        out["answer_set"] = answer_set_dict(view, limit=ENVELOPE_FILES)
    return out
