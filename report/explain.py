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


def render_explain(result: SessionScore, asked=()) -> str:
    """`asked`: what each call asked (`calls_asked`), for the calls of sources other than the explore
    source (an explore call's is its query)."""
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
    lines.append("  calls (explore query as asked; another source's call: the tool and what it read or searched):")
    queries = result.queries or (None,) * len(result.calls)
    asked = tuple(asked) or (None,) * len(result.calls)
    for call, query, other in zip(result.calls, queries, asked):
        what = other or ("no query recorded" if query is None else json_bytes(cut_query(query)).decode())
        # Cut as the sufficiency block cuts it; --json has it whole. A call that returned no file: no share.
        share = percent(call.efficiency) if call.files else "n/a"
        lines.append(f"    call {call.number}  {share} of {thousands(call.envelope)} chars  {what}")
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


def calls_asked(score: SessionScore, transcript) -> tuple:
    """Per call, what a call of a source other than the explore source asked (its tool and the path
    read, the pattern searched, the command run, the query asked), found by where its result
    stands in the transcript; None for an explore call (its query is shown) or one not found."""
    if transcript is None or not score.cut:
        return ()
    uses = {(r.origin.file, r.origin.line): r for r in transcript.tool_results}
    out = []
    for call in score.cut:
        result = uses.get((call.origin.file, call.origin.line)) if call.response < 0 else None
        out.append(described(result.name, result.use) if result is not None else None)
    return tuple(out)


def described(name: str, use) -> str:
    """A tool call in a few words: its tool and what it asked (quoted as JSON, long values cut)."""
    def quoted(value: str) -> str:
        return json_bytes(cut_query(value)).decode()

    if use is None:
        return printable(name)
    if use.query:
        detail = quoted(use.query)
    elif use.file_path or use.notebook_path:
        detail = quoted(use.file_path or use.notebook_path)
    elif use.pattern:
        detail = quoted(use.pattern) + (f" in {quoted(use.path)}" if use.path else "")
    elif use.command:
        detail = quoted(use.command)
    elif use.path:
        detail = quoted(use.path)
    else:
        detail = "(no input recorded)"
    return printable(f"{name} {detail}")
