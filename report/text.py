"""The reference's text block (spec section 6), byte for byte."""

from __future__ import annotations

from citeledger.core import percent, printable, thousands
from citeledger.report.evidence import evidence_label
from citeledger.core.scores import SessionScore, ratio

TOP_FILES = 12
# The explore tool as the reference's output names it: output text, written whatever
# the ruleset's explore tool, and the one place a report writes it (docs/decisions.md,
# "The explore tool is an ordinary source's options").
TOOL_NAME = "codegraph_explore"
NO_CALLS = f"Explore allocation: no {TOOL_NAME} responses with source sections"
NO_ANSWER = "  !! no final answer text found — efficiency is not meaningful for this run"
NOTE = "  note: relative metric — attribution is by citation, so compare builds on the same question, not absolutes."


def label(verdict) -> str:
    """The file's credit as its channel renders it (report/evidence.py); "—" for none."""
    return "—" if verdict.channel is None else evidence_label(verdict)


def counted(n: int, word: str) -> str:
    """The heading's counts: singular for one (spec section 6); other lines stay plural."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def floor_channel(score: SessionScore) -> str:
    """The first-ranked channel, whose share alone is the lower bound (a ruleset ranks at least one)."""
    return score.channels[0]


# What a size counts, by the ruleset's unit: the reference's JavaScript length reads as "chars".
UNIT_WORDS = {"utf16": "chars", "codepoint": "chars", "utf8": "bytes"}
REFERENCE_RULESET = "default"


def heading_tail(score: SessionScore) -> str:
    """Beyond the reference only: the ruleset's name (and a unit other than chars) in the heading."""
    if score.ruleset == REFERENCE_RULESET:
        return ""
    unit = UNIT_WORDS.get(score.unit, score.unit)
    return f"; ruleset {score.ruleset}" + ("" if unit == "chars" else f", in {unit}")


def written_line(written) -> str:
    """What the answer judged holds beyond the final message (a ruleset's answer.written)."""
    if not written:
        return "  answer judged: the final message (the agent wrote no file answer.written takes)"
    return f"  answer judged: the final message + what the agent wrote to {', '.join(printable(p) for p in written)}"


def render_text(score: SessionScore) -> str:
    if not score.files:  # no call, or calls of meta alone ("No files found"): nothing to attribute
        return NO_CALLS + (f" (ruleset {score.ruleset})" if score.ruleset != REFERENCE_RULESET else "") + "\n"
    env = score.envelope
    chars = UNIT_WORDS.get(score.unit, score.unit)
    lines = [
        f"Explore allocation — share of returned bytes the answer used ({counted(len(score.calls), 'call')}, "
        f"{counted(len(score.files), 'file')}{heading_tail(score)}):",
        f"  efficiency {percent(score.efficiency):>6}  {thousands(score.used)} of {thousands(env)} {chars}"
        f"   ({score.files_used}/{len(score.files)} files cited; {floor_channel(score)}-cited alone {percent(score.lower_bound)})",
    ]
    # Line level and the ladder appear only beyond the reference (a line-aware
    # channel, or more than the two default channels), so `default` stays byte-identical.
    if score.line_level:
        lines.append(
            f"  line-level {percent(score.line_efficiency):>6}  {thousands(score.line_used)} of {thousands(env)} {chars}"
            f"   (on credited source lines; lines pinned by line/quote citations alone {percent(score.line_pinned_efficiency)})"
        )
    if score.answer_written is not None:
        lines.append(written_line(score.answer_written))
    if not score.has_answer:
        lines.append(NO_ANSWER)
    for call in score.calls:
        lines.append(
            f"  call {call.number}: {percent(call.efficiency):>6}  {thousands(call.used)}/{thousands(call.envelope)} {chars}"
            f"  {call.sections_used}/{call.sections} files"
            + (f"  lines {percent(call.line_efficiency)} {thousands(call.line_used)}" if score.line_level else "")
        )
    for f in score.files[:TOP_FILES]:
        mark = "*" if f.verdict.credited else " "
        lines.append(
            f"  {mark} {percent(ratio(f.chars, env)):>6} {f.chars:>6}  {printable(f.path)}  {label(f.verdict)}"
            + (f"  (lines {f.line_used})" if score.line_level and f.verdict.credited else "")
        )
    if len(score.files) > TOP_FILES:
        lines.append(f"    … {len(score.files) - TOP_FILES} more files")
    if score.meta_chars:
        lines.append(f"    {percent(ratio(score.meta_chars, env)):>6} {score.meta_chars:>6}  (trailing blocks, charged to no file)")
    if len(score.channels) > 2:
        lines.append(ladder_line(score))
    if score.sources:  # a ruleset counting more than one source (retrieval)
        lines.append(source_line(score))
    lines.append(NOTE)
    return "\n".join(lines) + "\n"


def ladder_line(score: SessionScore) -> str:
    """Cumulative file-level lower bounds as channels are added in rank order."""
    steps = [f"{'+' if i else ''}{name} {percent(eff)}" for i, (name, eff) in enumerate(score.ladder)]
    return "  ladder (cumulative lower bounds): " + " · ".join(steps)


def source_line(score: SessionScore) -> str:
    """Each source's efficiency beside the total: its credited chars of what it returned."""
    steps = [
        f"{s.name} {percent(s.efficiency) if s.envelope else 'n/a'} ({thousands(s.used)}/{thousands(s.envelope)})"
        for s in score.sources
    ]
    return f"  by source (total {percent(score.efficiency)}): " + " · ".join(steps)


def added_line(added) -> str:
    """The line saying which files were read beside those given (the partial-session rule)."""
    return f"  also read, as the same session as the file(s) given: {', '.join(added)}\n" if added else ""
