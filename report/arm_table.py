"""The arm table, byte for byte as codegraph's `compare-arms.mjs DIR LABEL...` prints it.

Any number of arms side by side, each a list of `RunFigures`
(harness/arm_runs.py): runs, non-success and race counts; behaviour,
occupancy, pooled sufficiency, allocation and contamination rows; the "how to
read this" footer. Each spanned cell is `median [min–max]`, one value when
there is one run or min and max print the same.
"""

from __future__ import annotations

from typing import Optional

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


def spread(values) -> Optional[tuple]:
    """(median, min, max) of the figures that are numbers; None when none is."""
    xs = [x for x in values if x is not None and x == x and abs(x) != float("inf")]
    if not xs:
        return None
    return median(xs), min(xs), max(xs)


def span(values, fmt=whole) -> str:
    """`median [min–max]` of the figures that are numbers; `—` when none is."""
    found = spread(values)
    if found is None:
        return "—"
    middle, lo, hi = fmt(found[0]), fmt(found[1]), fmt(found[2])
    # one value for a single run: its min and max are the median and print the same
    return middle if lo == hi else f"{middle} [{lo}–{hi}]"


# The spanned rows, each (field of a RunBehaviour, label, format): the arm table's and compare's.
BEHAVIOUR_ROWS = (("duration_s", "duration (s)", whole), ("tools", "tool calls", whole), ("reads", "Read", whole),
                  ("search", "Grep/Glob", whole), ("bash", "Bash", whole), ("codegraph_calls", "codegraph calls", whole))
OCCUPANCY_ROWS = (("final_context", "final context (tok)", tokens),
                  ("codegraph_residual", "codegraph residual (tok)", tokens),
                  ("file_access_residual", "file-access residual (tok)", tokens),
                  ("retrieval_residual", "→ retrieval residual (tok)", tokens),
                  ("retrieval_share", "→ share of final context", pct1))
OCCUPANCY_TITLE = "residual context occupancy (CG-7) — tokens still resident at end of run"
CONTAMINATION_TITLE = "contamination — the CLI must never be how codegraph is reached"
CLI_RETURNED, CLI_BLOCKED = "CLI calls that RETURNED output", "CLI attempts blocked"


def _row(label: str, cells) -> str:
    return "  " + pad_end(label, LABEL_WIDTH) + "".join(" " + pad_start(str(c), CELL_WIDTH - 1) for c in cells)


def _pooled_share(n: int, total: int) -> str:
    return f"{n}  {to_fixed(n / total * 100, 0)}%" if total else "—"


def non_success(runs) -> int:
    """Runs without a success result (a killed run's none counts, as the harness's `!ok`)."""
    return sum(1 for r in runs if not r.ok)


def _head(arms, row) -> list[str]:
    out = [row("", [label for label, _ in arms]), row("runs", [len(runs) for _, runs in arms])]
    if any(non_success(runs) for _, runs in arms):
        out.append(row("  of which non-success", [non_success(runs) for _, runs in arms]))
    if any(r.raced for _, runs in arms for r in runs):
        out.append(row("  MCP cold-start race", [sum(1 for r in runs if r.raced) for _, runs in arms]))
    return out


def _behaviour(arms, row) -> list[str]:
    def spanned(rows):
        return [row(f"  {label}", [span([getattr(r, field) for r in runs], fmt) for _, runs in arms])
                for field, label, fmt in rows]

    return ["  behavior", *spanned(BEHAVIOUR_ROWS), "", f"  {OCCUPANCY_TITLE}", *spanned(OCCUPANCY_ROWS)]


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


def cli_counts(runs) -> tuple[int, int]:
    """(CLI calls that returned output, CLI attempts) summed over `runs`."""
    return sum(r.cli_returned or 0 for r in runs), sum(r.cli_attempts for r in runs)


def contaminated(arms) -> list[str]:
    """The labels of the arms one of whose runs reached codegraph through its CLI."""
    return [label for label, runs in arms if any(r.cli_returned for r in runs)]


def _contamination(arms, row) -> list[str]:
    # The harness's "blocked" row counts every attempt, returned or not (docs/decisions.md).
    counts = [cli_counts(runs) for _, runs in arms]
    out = [f"  {CONTAMINATION_TITLE}", row(f"  {CLI_RETURNED}", [c[0] for c in counts]),
           row(f"  {CLI_BLOCKED}", [c[1] for c in counts])]
    dirty = contaminated(arms)
    if dirty:
        out += [f"  !! {', '.join(dirty)} {CONTAMINATED}", CONTAMINATED_NOTE]
    return out


NOT_APPLICABLE = "n/a"


def no_result(run) -> bool:
    """A run of a format that ends no session with a result event (an interactive log) that has
    none: compare's own view counts it neither a success nor a failure, and knows no duration."""
    return not run.result_expected and not run.ok


def _own_head(arms, row) -> list[str]:
    """compare's own runs rows: non-success over the runs with a result event (n/a when no run has
    one), and how many runs have none where any has."""
    unknown = [sum(1 for r in runs if no_result(r)) for _, runs in arms]
    failed = [sum(1 for r in runs if not r.ok and not no_result(r)) for _, runs in arms]
    out = [row("", [label for label, _ in arms]), row("runs", [len(runs) for _, runs in arms])]
    if any(failed) or any(unknown):
        out.append(row("  of which non-success", [NOT_APPLICABLE if n and n == len(runs) else f
                                                  for f, n, (_, runs) in zip(failed, unknown, arms)]))
    if any(unknown):
        out.append(row("  of which no result event", unknown))
    if any(r.raced for _, runs in arms for r in runs):
        out.append(row("  MCP cold-start race", [sum(1 for r in runs if r.raced) for _, runs in arms]))
    return out


def _own_behaviour(arms, row) -> list[str]:
    """The behaviour and occupancy rows, a run without a result event left out of the duration
    (n/a when every run of an arm is one)."""
    def cell(field: str, fmt, runs) -> str:
        if field != "duration_s":
            return span([getattr(r, field) for r in runs], fmt)
        known = [r.duration_s for r in runs if not no_result(r)]
        return NOT_APPLICABLE if runs and len(known) == 0 else span(known, fmt)

    def spanned(rows):
        return [row(f"  {label}", [cell(field, fmt, runs) for _, runs in arms]) for field, label, fmt in rows]

    return ["  behavior", *spanned(BEHAVIOUR_ROWS), "", f"  {OCCUPANCY_TITLE}", *spanned(OCCUPANCY_ROWS)]


def behaviour_items(arms, row=_row) -> list:
    """The runs, behaviour, occupancy and contamination rows of `arms` ((label, [RunBehaviour, ...])
    pairs), each made by `row(label, cells)`, between the blocks' titles (str, "" between blocks):
    compare's block beside its statistics, as the arm table prints it but for a run without a
    result event of a format that ends none with one (`no_result`): not a failure, no duration."""
    return _own_head(arms, row) + [""] + _own_behaviour(arms, row) + [""] + _contamination(arms, row)


def behaviour_block(arms) -> str:
    """behaviour_items as the arm table's text."""
    return "\n".join(behaviour_items(arms)) + "\n"


def behaviour_dict(runs) -> dict:
    """The same rows of one arm's runs as numbers: each spanned figure `{median, min, max}` (null
    when no run logs it; `retrieval_share` a ratio), the counts summed."""
    unknown = [r for r in runs if no_result(r)]
    out = {"measured": len(runs), "non_success": sum(1 for r in runs if not r.ok and not no_result(r)),
           "no_result": len(unknown), "raced": sum(1 for r in runs if r.raced)}
    for field, _, _ in BEHAVIOUR_ROWS + OCCUPANCY_ROWS:
        found = spread([getattr(r, field) for r in runs if not (field == "duration_s" and no_result(r))])
        scale = 0.01 if field == "retrieval_share" else 1  # a ratio, as the sweep's shares are
        out[field] = None if found is None else {end: x * scale for end, x in zip(("median", "min", "max"), found)}
    out["cli_returned"], out["cli_attempts"] = cli_counts(runs)
    out["contaminated"] = bool(contaminated([("", runs)]))
    return out


SPANNED = tuple(field for field, _, _ in BEHAVIOUR_ROWS + OCCUPANCY_ROWS)
COUNTED = ("measured", "non_success", "no_result", "raced")
SUMMED = ("cli_returned", "cli_attempts", "contaminated")


def behaviour_columns(prefix: str) -> tuple[str, ...]:
    """behaviour_dict's figures as flat CSV columns, each named after `prefix`."""
    spanned = tuple(f"{prefix}{field}_{end}" for field in SPANNED for end in ("median", "min", "max"))
    return tuple(prefix + k for k in COUNTED) + spanned + tuple(prefix + k for k in SUMMED)


def behaviour_flat(prefix: str, figures: dict) -> dict:
    """behaviour_dict's record as behaviour_columns' scalars (empty where no run logs a figure)."""
    out = {prefix + k: figures[k] for k in COUNTED + SUMMED}
    for field in SPANNED:
        found = figures[field] or {}
        out.update({f"{prefix}{field}_{end}": found.get(end) for end in ("median", "min", "max")})
    return out


def render_arm_table(folder: str, arms) -> str:
    """The title (the directory as given) and the table of `arms`: (label, [RunFigures, ...])
    pairs, arms without runs already left out."""
    lines = ["", f"====== ARM COMPARISON — {folder} ======"]
    for block in (_head, _behaviour, _sufficiency, _allocation, _contamination):
        lines += block(arms, _row) + [""]
    lines += FOOTER
    return "\n".join(lines) + "\n"
