"""`citeledger explain`: why each returned file was or was not credited."""

from __future__ import annotations


import orjson

from citeledger.core.accountant import score
from citeledger.core.errors import EXIT_OK, EXIT_WARNINGS
from citeledger.core.jsstr import percent, thousands, utf16_len
from citeledger.report.jsonreport import session_dict
from citeledger.report.text import NO_CALLS
from citeledger.core.scores import SessionScore, ratio
from citeledger.cli.output import write_stdout
from citeledger.cli.commands.common import add_session_inputs, read_session, ruleset_from, session_note, warn

SOURCES = {
    "result": "the result event(s)",
    "text-event": "the last main-thread text event",
    "final-turn-text": "each turn's text after its last tool call",
    "none": "none found",
}


def add_parser(sub) -> None:
    p = sub.add_parser(
        "explain",
        help="why each returned file was or was not credited, channel by channel",
        description=(
            "For every file the explore calls returned: its pooled chars, what each channel of the "
            "ruleset found (in rank order) and the guard that decided, e.g. an ambiguity cutoff, a "
            "weak owner losing to a strong one, a bare basename whose extension was shipped. Same "
            "inputs as `score`: stream-json segment FILEs of one session, or --session PATH."
        ),
    )
    add_session_inputs(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (score's, with each file's findings)")
    p.set_defaults(run=run)


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
    width = max(len(c) for c in result.channels) if result.channels else 0
    for f in result.files:
        v = f.verdict
        decided = f"credited by {v.channel}" if v.credited else "not credited"
        calls = f"{f.calls} section" + ("s" if f.calls != 1 else "")
        lines.append("")
        lines.append(
            f"  {'*' if v.credited else ' '} {f.path}  {thousands(f.chars)} chars ({percent(ratio(f.chars, env))}), "
            f"{calls} — {decided}"
        )
        for finding in v.findings:
            mark = "yes" if finding.credited else "no "
            lines.append(f"      {finding.channel:<{width}}  {mark}  {finding.reason}")
    if result.meta_chars:
        lines.append("")
        lines.append(
            f"    (trailing blocks) {thousands(result.meta_chars)} chars ({percent(ratio(result.meta_chars, env))}) "
            "— charged to no file (splitter.trailing_block: meta)"
        )
    return "\n".join(lines) + "\n"


def run(args) -> int:
    ruleset = ruleset_from(args)
    transcript = read_session(args.files, args.session, ruleset)
    session_note(args.session, transcript)
    result = score(transcript, ruleset)
    if args.json:
        data = session_dict(result, explain=True)
        write_stdout(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        write_stdout(render_explain(result))
    for w in result.warnings:  # on stderr whatever the format; --json also carries them
        warn(w)
    return EXIT_WARNINGS if result.warnings or result.status != "scored" else EXIT_OK
