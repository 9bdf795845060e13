"""`explain`'s text: for every returned file, what each ranked channel found and the guard that decided."""

from __future__ import annotations

from citeledger.core import SessionScore, percent, printable, ratio, thousands, utf16_len
from citeledger.report.jsonreport import json_bytes
from citeledger.report.sufficiency import cut_query
from citeledger.report.text import NO_CALLS

SOURCES = {
    "result": "the result event(s)",
    "text-event": "the last main-thread text event",
    "final-turn-text": "each turn's text after its last tool call",
    "turns": "each turn's own answer, judging that turn's retrievals (answer.scope: turn)",
    "none": "none found",
}


def render_explain(result: SessionScore) -> str:
    if not result.calls:
        return NO_CALLS + "\n"
    env = result.envelope
    lines = [
        f"Explain — {result.name} under ruleset {result.ruleset} (channels in rank order: {', '.join(result.channels)})",
        f"  answer: {SOURCES.get(result.answer_source, result.answer_source)}"
        + (f", {thousands(utf16_len(result.answer))} chars" if result.has_answer else ""),
        f"  efficiency {percent(result.efficiency)}: {thousands(result.used)} of {thousands(env)} chars, "
        f"{result.files_used}/{len(result.files)} files credited",
    ]
    if not result.has_answer:
        lines.append("  !! no final answer text: nothing can be credited")
    lines.append("")
    lines.append("  calls (explore query as asked):")
    queries = result.queries or (None,) * len(result.calls)
    for call, query in zip(result.calls, queries):
        asked = "no query recorded" if query is None else json_bytes(cut_query(query)).decode()
        # Cut as the sufficiency block cuts it; --json has it whole.
        lines.append(f"    call {call.number}  {percent(call.efficiency)} of {thousands(call.envelope)} chars  {asked}")
    width = max(len(c) for c in result.channels) if result.channels else 0
    via = _sections_by_source(result)
    for f in result.files:
        v = f.verdict
        decided = f"credited by {v.channel}" if v.credited else "not credited"
        calls = f"{f.calls} section" + ("s" if f.calls != 1 else "")
        lines.append("")
        lines.append(
            f"  {'*' if v.credited else ' '} {printable(f.path)}  {thousands(f.chars)} chars ({percent(ratio(f.chars, env))}), "
            f"{calls} — {decided}"
        )
        if via:
            lines.append("      sections: " + ", ".join(via[f.path]))
        for finding in v.findings:
            mark = "yes" if finding.credited else "no "
            lines.append(f"      {finding.channel:<{width}}  {mark}  {finding.reason}")
    if result.meta_chars:
        lines.append("")
        lines.append(
            f"    (trailing blocks) {thousands(result.meta_chars)} chars ({percent(ratio(result.meta_chars, env))}) "
            "— charged to no file (its source's trailing_block: meta)"
        )
    return "\n".join(lines) + "\n"


def _sections_by_source(result: SessionScore) -> dict:
    """path -> "<source> call N (chars)" of each of its sections, when the ruleset counts several sources."""
    if not result.sources:
        return {}
    source_of = {n: s.name for s in result.sources for n in s.calls}
    out: dict = {}
    for call in result.calls:
        for path, chars in call.files:
            out.setdefault(path, []).append(f"{source_of[call.number]} call {call.number} ({thousands(chars)})")
    return out
