"""The arm table, byte for byte as codegraph's `compare-arms.mjs DIR LABEL...` prints it.

Any number of arms side by side, each a list of `RunFigures`
(harness/arm_runs.py): runs, non-success and race counts; behaviour,
occupancy, pooled sufficiency, allocation and contamination rows; the "how to
read this" footer. Each spanned cell is `median [min–max]`, one value when
there is one run or min and max print the same.
"""

from __future__ import annotations

from citeledger.core import BUCKETS, js_round, thousands, to_fixed, utf16_len
from citeledger.report.sufficiency import LABELS

LABEL_WIDTH = 36
CELL_WIDTH = 24  # with its one-space separator
FOOTER = (
    "  how to read this",
    "    occupancy  compare each arm's RETRIEVAL residual (codegraph in a with-arm,",
    "               file-access in a without-arm). Shares are Claude Code on a 200k",
    "               window and do NOT transfer to another host; the ratio does.",
    "    sufficiency  pooled across runs because it is per-CALL. \"explore again\" is",
    "               ambiguous by construction; \"Read a file we returned\" is an",
    "               allocation miss, the two recall rows are recall misses.",
    "    allocation  RELATIVE, not absolute — attribution is by citation, and an agent",
    "               can use a file without naming it. Compare builds on the SAME",
    "               question; never quote it as \"codegraph wastes N% of what it returns.\"",
    "    all three  small-n. Runs make 1–5 explore calls, so read the range, not the",
    "               median of one run. RUNS>=2, and the 7-repo campaign for a verdict.",
)
CONTAMINATED = "reached codegraph through Bash — those runs are CONTAMINATED"
CONTAMINATED_NOTE = "     (a without-arm was not without codegraph; a with-arm has bytes attributed to Bash, not codegraph)"


def pad_end(text: str, width: int) -> str:
    """String#padEnd: to `width` UTF-16 units."""
    return text + " " * max(0, width - utf16_len(text))


def pad_start(text: str, width: int) -> str:
    return " " * max(0, width - utf16_len(text)) + text


def median(xs: list):
    ordered = sorted(xs)
    m = len(ordered) >> 1
    return ordered[m] if len(ordered) % 2 else (ordered[m - 1] + ordered[m]) / 2


def whole(x) -> str:
    return str(js_round(x))


def tokens(x) -> str:
    return thousands(js_round(x))


def pct1(x) -> str:
    return to_fixed(x, 1) + "%"


def span(values, fmt=whole) -> str:
    """`median [min–max]` of the figures that are numbers; `—` when none is."""
    xs = [x for x in values if x is not None and x == x and abs(x) != float("inf")]
    if not xs:
        return "—"
    middle = fmt(median(xs))
    if len(xs) == 1:
        return middle
    lo, hi = fmt(min(xs)), fmt(max(xs))
    return middle if lo == hi else f"{middle} [{lo}–{hi}]"


def _row(label: str, cells) -> str:
    return "  " + pad_end(label, LABEL_WIDTH) + "".join(" " + pad_start(str(c), CELL_WIDTH - 1) for c in cells)


def _pooled_share(n: int, total: int) -> str:
    return f"{n}  {to_fixed(n / total * 100, 0)}%" if total else "—"


def _head(arms, row) -> list[str]:
    out = [row("", [label for label, _ in arms]), row("runs", [len(runs) for _, runs in arms])]
    if any(not r.ok for _, runs in arms for r in runs):
        out.append(row("  of which non-success", [sum(1 for r in runs if not r.ok) for _, runs in arms]))
    if any(r.raced for _, runs in arms for r in runs):
        out.append(row("  MCP cold-start race", [sum(1 for r in runs if r.raced) for _, runs in arms]))
    return out


def _behaviour(arms, row) -> list[str]:
    def spanned(label, pick, fmt=whole):
        return row(label, [span([pick(r) for r in runs], fmt) for _, runs in arms])

    return ["  behavior", spanned("  duration (s)", lambda r: r.duration_s), spanned("  tool calls", lambda r: r.tools),
            spanned("  Read", lambda r: r.reads), spanned("  Grep/Glob", lambda r: r.search),
            spanned("  Bash", lambda r: r.bash), spanned("  codegraph calls", lambda r: r.codegraph_calls), "",
            "  residual context occupancy (CG-7) — tokens still resident at end of run",
            spanned("  final context (tok)", lambda r: r.final_context, tokens),
            spanned("  codegraph residual (tok)", lambda r: r.codegraph_residual, tokens),
            spanned("  file-access residual (tok)", lambda r: r.file_access_residual, tokens),
            spanned("  → retrieval residual (tok)", lambda r: r.retrieval_residual, tokens),
            spanned("  → share of final context", lambda r: r.retrieval_share, pct1)]


def _sufficiency(arms, row) -> list[str]:
    answered = [sum(r.sufficiency_answered for r in runs) for _, runs in arms]
    out = ["  explore sufficiency (CG-8) — pooled over every answered explore call",
           row("  answered explore calls", answered)]
    for index, bucket in enumerate(BUCKETS):
        out.append(row(f"  {LABELS[bucket][0]}", [
            _pooled_share(sum(r.sufficiency_counts[index] for r in runs), total)
            for (_, runs), total in zip(arms, answered)]))
    if any(r.sufficiency_errors for _, runs in arms for r in runs):
        out.append(row("  errored/unanswered (not bucketed)", [sum(r.sufficiency_errors for r in runs) for _, runs in arms]))
    return out


def _allocation(arms, row) -> list[str]:
    def pooled(runs) -> str:
        envelope = sum(r.alloc_envelope or 0 for r in runs)
        used = sum(r.alloc_used or 0 for r in runs)
        return pct1(used / envelope * 100) if envelope else "—"

    return ["  explore allocation efficiency (CG-9) — share of returned bytes the answer cited",
            row("  explore calls with source", [sum(r.alloc_calls for r in runs) for _, runs in arms]),
            row("  pooled efficiency", [pooled(runs) for _, runs in arms]),
            row("  per-run efficiency", [span([r.alloc_efficiency for r in runs], pct1) for _, runs in arms]),
            row("  envelope (chars)", [tokens(sum(r.alloc_envelope or 0 for r in runs)) for _, runs in arms])]


def _contamination(arms, row) -> list[str]:
    # The harness's "blocked" row counts every attempt, returned or not (docs/decisions.md).
    out = ["  contamination — the CLI must never be how codegraph is reached",
           row("  CLI calls that RETURNED output", [sum(r.cli_returned or 0 for r in runs) for _, runs in arms]),
           row("  CLI attempts blocked", [sum(r.cli_attempts for r in runs) for _, runs in arms])]
    dirty = [label for label, runs in arms if any(r.cli_returned for r in runs)]
    if dirty:
        out += [f"  !! {', '.join(dirty)} {CONTAMINATED}", CONTAMINATED_NOTE]
    return out


def render_arm_table(folder: str, arms) -> str:
    """The title (the directory as given) and the table of `arms`: (label, [RunFigures, ...])
    pairs, arms without runs already left out."""
    lines = ["", f"====== ARM COMPARISON — {folder} ======"]
    for block in (_head, _behaviour, _sufficiency, _allocation, _contamination):
        lines += block(arms, _row) + [""]
    lines += FOOTER
    return "\n".join(lines) + "\n"
