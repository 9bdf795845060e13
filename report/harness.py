"""The harness's per-run report, byte for byte as codegraph's `parse-run.mjs FILES` prints it.

The run basics and the residual context occupancy block come from the
`run` and `occupancy` metric records (metrics/); then the sufficiency, the
allocation and (when asked) the envelope blocks, each as citeledger prints
them on its own, at the harness's two-space indent.
"""

from __future__ import annotations

import re

from citeledger.core import js_round, js_stringify, printable, thousands, to_fixed
from citeledger.report.sufficiency import render_sufficiency
from citeledger.report.text import TOOL_NAME, render_text

INDENT = "  "
RACE = '  [MCP COLD-START RACE — tool call hit "No such tool available"]'
CONTAMINATED = "RETURNED OUTPUT via Bash — if this is a without-arm, the run is CONTAMINATED"
BLOCKED = "blocked — no output entered the window"
FIXED_NOTE = "system + tool schemas + question, before any tool answered"
FALLBACK_NOTE = "(FALLBACK — no clean gap to calibrate on)"
NOT_LOGGED = "Residual context occupancy: not measurable (this transcript's format logs no prompt sizes)"
# The occupancy rows: label, family (None: the file-access sum).
ROWS = (("codegraph", "codegraph"), ("Read", "read"), ("Grep/Glob", "search"), ("Bash", "bash"),
        ("→ file-access", None), ("other tools", "other"))
# Node writes a lone surrogate (a 50-unit cut through a pair) to UTF-8 as U+FFFD.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def indented(block: str) -> list[str]:
    """A block's lines at the harness's indent (its trailing newline dropped)."""
    return [INDENT + line for line in block.rstrip("\n").split("\n")]


def header_lines(files, run) -> list[str]:
    """The title, tools exposed with the race flag, and the CLI contamination line."""
    exposed = "?" if run.tools_exposed is None else str(run.tools_exposed)
    lines = ["", f"=== {' + '.join(printable(f.rsplit('/', 1)[-1]) for f in files)} ===",
             f"codegraph tools exposed: {exposed}{RACE if run.raced else ''}"]
    if run.cli.returned:
        lines.append(f"!! {plural(run.cli.returned, 'codegraph CLI call')} {CONTAMINATED}")
    elif run.cli.attempts:
        lines.append(f"   ({plural(run.cli.attempts, 'codegraph CLI attempt')} {BLOCKED})")
    return lines


def call_lines(run, brief: bool) -> list[str]:
    lines = ["", f"Tool calls ({len(run.calls)}):", f"  by type: {js_stringify(run.by_name())}"]
    if not brief:
        # A tool name or Read path is the transcript's text: escaped (infra/printable.py), it forges no row.
        lines += [f"  {i}. {printable(call.line())}" for i, call in enumerate(run.calls, 1)]
    return lines


def result_lines(run) -> list[str]:
    """The result and tokens lines, when some segment ended with a result event."""
    if not run.segments:
        return []
    subtype = "undefined" if run.subtype is None else printable(run.subtype)  # as a template literal prints it
    segments = ""
    if len(run.segments) > 1:
        names = ",".join("" if s is None else printable(s) for s in run.segments)  # Array#join: a missing one is empty
        segments = f" | {len(run.segments)} segments ({names})"
    turns = "undefined" if run.turns is None else str(run.turns)
    # A figure no segment logged is the script's `|| 0` sum: 0.
    lines = ["", f"Result: {subtype} | duration {to_fixed(run.duration_s or 0, 0)}s | turns {turns}{segments}"]
    processed = "undefined" if run.tokens_processed is None else thousands(run.tokens_processed)
    lines.append(f"  tokens processed: {processed} | cost ${to_fixed(run.cost_usd or 0, 3)}")
    return lines


def occupancy_lines(o, turns) -> list[str]:
    """The residual context occupancy block (parse-run.mjs formatOccupancy)."""
    if o is None:
        return [INDENT + NOT_LOGGED]
    window = f"{js_round(o.window_tokens / 1000)}k"

    def of_context(tokens: int) -> str:
        return (to_fixed(tokens / o.final_context * 100, 1) if o.final_context > 0 else "0.0") + "%"

    def of_window(tokens: int) -> str:
        return to_fixed(tokens / o.window_tokens * 100, 1) + "%"

    def row(label: str, tokens: int, tail: str = "") -> str:
        return (f"    {label:<18}{thousands(tokens) + ' tok':>12}  {of_context(tokens):>6} of ctx  "
                f"{of_window(tokens):>6} of {window} win{tail}")

    lines = ["  Residual context occupancy at end of run:",
             f"    {'final context':<18}{thousands(o.final_context) + ' tok':>12}  {of_window(o.final_context):>6} of {window} window",
             f"    {'  of which fixed':<18}{thousands(o.fixed) + ' tok':>12}  {FIXED_NOTE}"]
    for label, family in ROWS:
        if family is None:
            tokens, chars, results = o.residual_file_access, o.chars_file_access, o.results_file_access
        else:
            tokens, chars, results = getattr(o.residual, family), getattr(o.chars, family), getattr(o.results, family)
        lines.append(row(label, tokens, f"   ({thousands(chars)} chars, {plural(results, 'result')})"))
    lines.append(row("base (prompt+prose)", o.base))
    lines.append(measure_line(o, turns))
    return lines


def measure_line(o, turns) -> str:
    """The ratio and how it was found, its dispersion, turns, compactions and what left the window."""
    line = f"    measure: {to_fixed(o.chars_per_token, 2)} chars/tok {'measured' if o.calibrated else FALLBACK_NOTE}"
    if o.dispersion is not None:
        line += f" ±{to_fixed(o.dispersion * 100, 1)}%"
    line += f" · turns {turns} · compactions {o.compactions}"
    dropped = (o.contributed.codegraph + o.contributed_file_access + o.contributed.other
               - (o.residual.codegraph + o.residual_file_access + o.residual.other))
    if o.evicted > 0 or dropped > 1:
        line += f" · evicted {thousands(o.evicted)} tok"
    return line


def render_harness(files, run, occupancy, score, sufficiency, envelope=None, brief: bool = False) -> str:
    """The whole report: `files` as given, the `run` and `occupancy` records, the session's
    score (the allocation block), its sufficiency record and, when asked, the envelope view."""
    turns = run.turns if run.turns is not None else occupancy.requests if occupancy is not None else 0
    lines = header_lines(files, run) + call_lines(run, brief) + result_lines(run)
    lines += [""] + occupancy_lines(occupancy, turns)
    lines += [""] + indented(render_sufficiency(sufficiency))
    lines += [""] + indented(render_text(score))
    if envelope is not None:
        from citeledger.report.envelope import render_envelope  # --envelope, --answer only

        lines += [""] + indented(render_envelope(envelope))
    return _LONE_SURROGATE.sub("\ufffd", "\n".join(lines) + "\n")


def tally_lines(counts) -> str:
    """One tally, parse-session.mjs's layout: the count right-aligned in 3, then the name."""
    return "\n".join(f"    {count:>3}  {printable(name)}" for name, count in counts) or "    (none)"


def kilo(n) -> str:
    return to_fixed(n / 1000, 1) + "k"


def render_session(tally, sufficiency, score) -> str:
    """The interactive session's report, byte for byte as `parse-session.mjs PROJECT` prints it:
    the `tally` (harness/session_tally.py), then the sufficiency and allocation blocks unindented."""
    files = tally.subagent_files
    lines = [f"session: {printable(str(tally.session_id))}", "", "MAIN thread tools:", tally_lines(tally.main), "",
             f"SUBAGENT tools ({files} subagent transcript{'' if files == 1 else 's'}):", tally_lines(tally.subagents),
             "", f"VERDICT: {TOOL_NAME} used {tally.explore}x | Read {tally.reads} | Grep/Bash {tally.greps}"]
    t = tally.tokens
    if t is None:
        lines.append("TOKENS: not logged")
    else:
        lines.append(f"TOKENS: gen {kilo(t.generated)} | fresh-in {kilo(t.fresh)} | cached-in {kilo(t.cached)} "
                     f"| billable≈ {kilo(t.billable)}")
    lines += ["", render_sufficiency(sufficiency).rstrip("\n"), "", render_text(score).rstrip("\n")]
    return _LONE_SURROGATE.sub("\ufffd", "\n".join(lines) + "\n")
