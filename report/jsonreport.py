"""A scored session as plain data for JSON (stable key order)."""

from __future__ import annotations

import re

import orjson
import re2

from citeledger.core import json_safe
from citeledger.core.scores import SessionScore, ratio

# Lone surrogates (a `\ud800` escape in a transcript, a file name's
# undecodable bytes) are no UTF-8. JSON output writes them as JavaScript's
# JSON.stringify does, as `\udXXX` escapes; U+FDD0 marks them on the way.
_MARKED = re.compile("[\ud800-\udfff\ufdd0]")
_MARK = re.compile(rb"\xef\xb7\x90([0-9a-f]{4})")


# A number orjson writes that may be out of range (infra/outside.py): 16 digits or more, or a
# positive exponent. Text inside a string can look so too: then the value is checked, not the bytes.
# Searched by RE2 (one linear pass in C, six times re's speed here: the check runs on every record).
_SUSPECT = re2.compile(rb"[\[:,]\s*-?(?:\d{16}|\d[\d.]*e\+)")


def json_bytes(value, indent: bool = False) -> bytes:
    """orjson's bytes for `value`; lone surrogates become \\u escapes instead of an error, and a
    number out of range (not finite, or past 2^53 in magnitude: infra/outside.py) null."""
    option = orjson.OPT_INDENT_2 if indent else None
    try:
        out = orjson.dumps(value, option=option)
    except TypeError:  # a lone surrogate, or an int past 64 bits
        return _fallback(json_safe(value), option)
    if _SUSPECT.search(out) is None:
        return out
    return _fallback(json_safe(value), option)


def _fallback(value, option) -> bytes:
    try:
        return orjson.dumps(value, option=option)
    except TypeError:
        marked = orjson.dumps(_mark(value), option=option)
        return _MARK.sub(lambda m: b"\\u" + m.group(1), marked)


def _mark(value):
    if isinstance(value, str):
        return _MARKED.sub(lambda m: "\ufdd0%04x" % ord(m.group()), value)
    if isinstance(value, dict):
        return {_mark(k): _mark(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_mark(v) for v in value]
    return value


def finding_dict(f) -> dict:
    out = {"channel": f.channel, "credited": f.credited, "evidence": f.evidence, "reason": f.reason}
    if getattr(f, "lines", None) is not None:  # line-aware channels only
        out["lines"] = sorted(f.lines)
    return out


def session_object(result) -> dict:
    """The JSON object of one session result (report.results.SessionResult): score's; explain's adds
    each file's findings and what each call asked."""
    data = session_dict(result.score, explain=result.kind == "explain")
    if result.kind == "explain":  # what each call of a source other than the explore source asked
        from citeledger.report.explain import calls_asked

        for call, asked in zip(data["calls"], calls_asked(result.score, result.transcript)):
            call["asked"] = asked
    if result.session_path is not None:
        data["session_path"] = result.session_path
    if result.json_added:  # the partial-session rule read these too; `inputs` lists every file read
        data["added_inputs"] = list(result.json_added)
    data.update(result.views())
    if result.metrics:
        from citeledger.core import metrics

        known = metrics()
        data.update({name: known[name]().as_json(record) for name, record in result.metrics.items()})
    if result.sufficiency is not None:
        from citeledger.report.sufficiency import sufficiency_dict

        data["sufficiency"] = sufficiency_dict(result.sufficiency)
    if getattr(result, "retrieval_next", None) is not None:
        from citeledger.report.next_acts import next_acts_dict

        data["next_acts"] = next_acts_dict(result.retrieval_next)
    if result.reads is not None:  # the reads after each call (a ranked channel places them)
        from citeledger.report.reads import reads_dict

        data["reads"] = reads_dict(result.reads)
    data.update(result.extra_data)
    return data


def session_dict(score: SessionScore, explain: bool = False) -> dict:
    out = session_head(score)
    via = source_of_calls(score)
    verdicts = {f.path: f.verdict for f in score.files}
    queries = score.queries or (None,) * len(score.calls)
    out["calls"] = [call_dict(score, call, query, verdicts, via) for call, query in zip(score.calls, queries)]
    out["files"] = [file_dict(score, f, explain) for f in score.files]
    return out


def session_head(score: SessionScore) -> dict:
    """Everything of `session_dict` but its calls and files (left empty, in their places)."""
    env = score.envelope
    scored = score.status == "scored"  # unscored is null everywhere, as in sweep rows: never a 0%
    out = {
        "session": score.name,
        **score.whereabouts.as_dict(),  # when, where and by which agent (None: the log does not say)
        "inputs": list(score.inputs),
        "status": score.status,
        "ruleset": score.ruleset,
        "channels": list(score.channels),
        "envelope": env,
        "used": score.used,
        "efficiency": score.efficiency if scored else None,
        "lower_bound": score.lower_bound if scored else None,
        "ladder": [{"channels": list(score.channels[: i + 1]), "efficiency": e if scored else None}
                   for i, (_, e) in enumerate(score.ladder)],
        "used_by_channel": dict(zip(score.channels, score.used_by_rank)),
        "meta_chars": score.meta_chars,
        "files_returned": len(score.files),
        "files_used": score.files_used,
        "has_answer": score.has_answer,
        "answer_source": score.answer_source,
        **({} if score.answer_written is None else {"answer_written": list(score.answer_written)}),
        "warnings": [w.as_dict() for w in score.warnings],
        "calls": [],
        "files": [],
    }
    if not scored:
        from citeledger.report.tables import reason_of

        out["reason"] = reason_of(score.status, score.source_names)
    if score.line_level:  # only beyond the reference: default's JSON keeps its keys
        out["line_level"] = {
            "used": score.line_used,
            "efficiency": score.line_efficiency,
            "pinned": score.line_pinned,
            "pinned_efficiency": score.line_pinned_efficiency,
        }
    if score.sources:  # only beyond the reference: default's JSON keeps its keys
        out["sources"] = [
            {"source": s.name, "calls": len(s.calls), "envelope": s.envelope, "used": s.used,
             "efficiency": s.efficiency if s.envelope else None}
            for s in score.sources
        ]
    return out


def source_of_calls(score: SessionScore) -> dict:
    """Call number -> its source, when the ruleset counts several (else empty: no `via` key)."""
    return {n: s.name for s in score.sources for n in s.calls} if score.sources else {}


def call_dict(score: SessionScore, call, query, verdicts: dict, via: dict, sections=None) -> dict:
    """One call's record; `verdicts`: path -> its verdict; `sections`: the indices of the sections
    to list (a page's bound), else every one."""
    listed = call.files if sections is None else [call.files[k] for k in sections]
    out = {
        "call": call.number,
        "query": query,
        "envelope": call.envelope,
        "used": call.used,
        "efficiency": call.efficiency,
        "source": {"file": call.origin_file, "line": call.origin_line},
        "files": [
            {"path": p, "chars": c, "channel": verdicts[p].channel, "evidence": verdicts[p].evidence}
            for p, c in listed
        ],
    }
    if via:
        out["via"] = via[call.number]
    if score.line_level:
        out.update(line_used=call.line_used, line_efficiency=call.line_efficiency, line_pinned=call.line_pinned)
    return out


def file_dict(score: SessionScore, f, explain: bool) -> dict:
    """One pooled file's record (`explain`: with every channel's finding)."""
    row = {
        "path": f.path,
        "chars": f.chars,
        "share": ratio(f.chars, score.envelope),
        "calls": f.calls,
        "channel": f.verdict.channel,
        "evidence": f.verdict.evidence,
    }
    if score.line_level:
        row["line_used"] = f.line_used
    if explain:
        row["findings"] = [finding_dict(x) for x in f.verdict.findings]
    return row
