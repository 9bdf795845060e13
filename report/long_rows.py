"""One row per call and one row per returned file of a session's score: the long tables.

`sweep --out` writes them as `calls.csv` and `files.csv` (and Parquet with
`--parquet`); `citeledger.frames` returns them as DataFrames. Every value is
a scalar (a string, a number, a bool or empty), so a CSV loads in pandas
without converters; which files a call credited is its `credited` count here
and, in the DataFrame, a list column added by the API.

A row of a session that is not scored carries its `status` and no
efficiency: its chars are listed, never averaged in (as a session row's are).
"""

from __future__ import annotations

from citeledger.core import ratio

CALL_COLUMNS = (
    "session", "ruleset", "status", "call", "source", "query", "origin_file", "origin_line",
    "envelope", "used", "efficiency", "sections", "sections_used", "files_returned", "credited",
)
FILE_COLUMNS = (
    "session", "ruleset", "status", "path", "chars", "share", "calls", "credited", "channel", "evidence",
)


def call_sources(score, ruleset) -> dict[int, str]:
    """Each call's source name: the score's per-source split, else the ruleset's one source."""
    via = {n: s.name for s in score.sources for n in s.calls}
    only = ruleset.sources[0].name if len(ruleset.sources) == 1 else None
    return {c.number: via.get(c.number, only) for c in score.calls}


def credited_paths(score) -> dict[int, list[str]]:
    """Each call's credited files (its sections' paths whose session verdict credits them), in order."""
    verdicts = {f.path: f.verdict.channel for f in score.files}
    return {c.number: list(dict.fromkeys(p for p, _ in c.files if verdicts.get(p))) for c in score.calls}


def call_rows(key: str, ruleset, score) -> list[dict]:
    """The score's calls, one dict per call with CALL_COLUMNS (none for an unread session)."""
    if score is None:
        return []
    scored = score.status == "scored"
    queries = score.queries or (None,) * len(score.calls)
    sources = call_sources(score, ruleset)
    credited = credited_paths(score)
    return [
        {
            "session": key, "ruleset": ruleset.name, "status": score.status,
            "call": c.number, "source": sources[c.number], "query": q,
            "origin_file": c.origin_file, "origin_line": c.origin_line,
            "envelope": c.envelope, "used": c.used,
            "efficiency": c.efficiency if scored else None,
            "sections": c.sections, "sections_used": c.sections_used,
            "files_returned": len(dict.fromkeys(p for p, _ in c.files)),
            "credited": len(credited[c.number]),
        }
        for c, q in zip(score.calls, queries)
    ]


def file_rows(key: str, ruleset, score) -> list[dict]:
    """The score's pooled files, one dict per file with FILE_COLUMNS, by pooled chars descending."""
    if score is None:
        return []
    return [
        {
            "session": key, "ruleset": ruleset.name, "status": score.status,
            "path": f.path, "chars": f.chars, "share": ratio(f.chars, score.envelope), "calls": f.calls,
            "credited": f.verdict.channel is not None,
            "channel": f.verdict.channel, "evidence": f.verdict.evidence,
        }
        for f in score.files
    ]


# Each column's type, for a typed table (Parquet): what a CSV reader infers from the values.
TYPES = {
    "session": "string", "ruleset": "string", "status": "string", "call": "int64", "source": "string",
    "query": "string", "origin_file": "string", "origin_line": "int64", "envelope": "int64", "used": "int64",
    "efficiency": "float64", "sections": "int64", "sections_used": "int64", "files_returned": "int64",
    "credited": "int64", "path": "string", "chars": "int64", "share": "float64", "calls": "int64",
    "channel": "string", "evidence": "string",
}
FILE_TYPES = {**TYPES, "credited": "bool"}  # a file is credited or not; a call credits a count of files


def long_rows(outcome, rulesets) -> tuple[tuple[tuple, ...], tuple[tuple, ...]]:
    """(call rows, file rows) of one outcome under every ruleset, as tuples in column order."""
    calls: list[tuple] = []
    files: list[tuple] = []
    for ruleset, score in zip(rulesets, outcome.scores):
        calls += [tuple(r[c] for c in CALL_COLUMNS) for r in call_rows(outcome.ref.key, ruleset, score)]
        files += [tuple(r[c] for c in FILE_COLUMNS) for r in file_rows(outcome.ref.key, ruleset, score)]
    return tuple(calls), tuple(files)
