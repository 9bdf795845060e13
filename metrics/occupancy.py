"""Residual context occupancy (codegraph's CG-7): how many tokens of the context
window each tool family's results still occupy when the run ends.

Measured from the prompt sizes Claude Code logs, not estimated from bytes.
Request k's prompt is its input + cache read + cache creation tokens, so the
gap between two requests is exactly the tokens appended between them: the
assistant's blocks and the tool results and user text that followed. A
characters-per-token ratio is calibrated on gaps that are mostly tool result;
every result is priced at it, per family, and queued oldest first. A
compaction boundary empties the queue; a gap that grew by less than its
results' tokens (beyond a tolerance) shed the difference, oldest first. What is
queued at the end is the residual. The numbers are the harness's
(parse-run.mjs `parseSession`), float operation for float operation.
"""

from __future__ import annotations

from collections import deque
from typing import Optional

import attrs

from citeledger.core import (
    FAMILIES, FILE_ACCESS, MAX_EXACT, Appended, Compaction, MetricOptions, Request, ToolOutput, hookimpl, js_round, tool_family,
)

# No gap to calibrate on: the ratio the harness assumes, and flags.
FALLBACK_CHARS_PER_TOKEN = 3.0
# A clean gap: more than this many characters, at least this share of them tool result.
CLEAN_MIN_CHARS = 500
CLEAN_TOOL_SHARE = 0.8
# A clean gap denser than this multiple of the lower median shed content: dropped.
SHEDDING_FACTOR = 1.5
# The dispersion's gaps: nearly all one tool result.
DISPERSION_TOOL_SHARE = 0.95
# A shortfall within max(this, this share of the gap's tool tokens) is attribution noise.
SHORTFALL_TOKENS = 200
SHORTFALL_SHARE = 0.05


@attrs.frozen
class Families:
    """One figure per tool family (harness.tools.FAMILIES)."""

    codegraph: float = 0
    read: float = 0
    search: float = 0
    bash: float = 0
    other: float = 0

    def as_dict(self) -> dict:
        return {f: getattr(self, f) for f in FAMILIES}


@attrs.frozen
class Occupancy:
    """The occupancy figures of one run (tokens rounded as the harness rounds them)."""

    final_context: int  # the last request's prompt
    fixed: int  # the first request's: system, tool schemas, the question
    window_tokens: int
    chars_per_token: float
    calibrated: bool  # False: no gap to calibrate on, FALLBACK_CHARS_PER_TOKEN
    dispersion: Optional[float]  # median relative error of one result's pricing; None: no gap to tell
    requests: int
    compactions: int
    evicted: int
    residual: Families
    contributed: Families
    chars: Families
    results: Families
    residual_file_access: int
    contributed_file_access: int
    chars_file_access: int
    results_file_access: int

    @property
    def base(self) -> int:
        """What no tool result accounts for: the prompt and the prose."""
        total = 0
        for family in FAMILIES:
            total += getattr(self.residual, family)
        return max(0, self.final_context - total)


@attrs.define
class _Gap:
    delta: int = 0
    chars: int = 0
    tool_chars: int = 0
    compacted: bool = False
    by_family: dict = attrs.Factory(dict)  # family -> chars, first seen first


def _gaps(context) -> tuple[list, list, int, dict, dict]:
    """(gaps between consecutive requests, every request's prompt, compactions, and every
    tool result's characters and count by family, before the first request included)."""
    gaps: list[_Gap] = []
    prompts: list[int] = []
    compactions = 0
    chars, results = dict.fromkeys(FAMILIES, 0), dict.fromkeys(FAMILIES, 0)
    gap = None
    family_of: dict = {}  # tool name -> family, worked out once per name
    for step in context:
        kind = type(step)
        if kind is ToolOutput:
            family = family_of.get(step.name)
            if family is None:
                family = family_of[step.name] = tool_family(step.name)
            chars[family] += step.chars
            results[family] += 1
            if gap is not None:
                gap.chars += step.chars
                gap.tool_chars += step.chars
                gap.by_family[family] = gap.by_family.get(family, 0) + step.chars
        elif kind is Appended:
            if gap is not None:
                gap.chars += step.chars
        elif kind is Request:
            prompt = step.usage.prompt
            if gap is not None:
                gap.delta = prompt - prompts[-1]
                gaps.append(gap)
            prompts.append(prompt)
            gap = _Gap()
        elif kind is Compaction:
            compactions += 1
            if gap is not None:
                gap.compacted = True
    return gaps, prompts, compactions, chars, results


def calibrate(gaps) -> tuple[float, bool]:
    """(chars per token, calibrated): clean gaps' lower median, shedding dropped, the rest pooled."""
    # A gap whose prompt sizes are out of range (infra/outside.py: 1e400 is Infinity) calibrates nothing.
    clean = [g for g in gaps if not g.compacted and 0 < g.delta <= MAX_EXACT and g.chars > CLEAN_MIN_CHARS
             and g.tool_chars / g.chars >= CLEAN_TOOL_SHARE]
    ratios = sorted(g.tool_chars / g.delta for g in clean)
    lower_median = ratios[(len(ratios) - 1) // 2] if ratios else 0
    tokens = chars = 0
    for g in clean:
        if lower_median > 0 and g.tool_chars / g.delta > lower_median * SHEDDING_FACTOR:
            continue
        tokens += g.delta
        chars += g.tool_chars
    if tokens == 0:  # no clean gap: every growing gap, all its characters
        for g in gaps:
            if not g.compacted and 0 < g.delta <= MAX_EXACT and g.chars > 0:
                tokens += g.delta
                chars += g.chars
    return (chars / tokens, True) if tokens > 0 else (FALLBACK_CHARS_PER_TOKEN, False)


def dispersion(gaps, chars_per_token: float) -> Optional[float]:
    """The lower median of |priced - delta| / delta over gaps that are one tool result."""
    errors = []
    for g in gaps:
        if g.compacted or not 0 < g.delta <= MAX_EXACT or g.chars <= CLEAN_MIN_CHARS or g.tool_chars / g.chars < DISPERSION_TOOL_SHARE:
            continue
        errors.append(abs(g.tool_chars / chars_per_token - g.delta) / g.delta)
    errors.sort()
    return errors[(len(errors) - 1) // 2] if errors else None


def _resident(gaps, chars_per_token: float) -> tuple[dict, dict, float]:
    """(residual tokens, contributed tokens, evicted tokens), unrounded, by family."""
    contributed = dict.fromkeys(FAMILIES, 0)
    queue: deque = deque()  # [family, tokens], oldest first (evicted from the front)
    evicted = 0
    for g in gaps:
        if g.compacted:  # the summary replaced everything before the boundary
            dropped = 0
            for _, tokens in queue:
                dropped += tokens
            evicted += dropped
            queue.clear()
        tool_tokens = 0
        for family, chars in g.by_family.items():
            tokens = chars / chars_per_token
            tool_tokens += tokens
            contributed[family] += tokens
            queue.append([family, tokens])
        shortfall = tool_tokens - g.delta
        if not g.compacted and shortfall > max(SHORTFALL_TOKENS, tool_tokens * SHORTFALL_SHARE):
            evicted = _shed(queue, shortfall, evicted)
    residual = dict.fromkeys(FAMILIES, 0)
    for family, tokens in queue:
        residual[family] += tokens
    return residual, contributed, evicted


def _shed(queue: deque, tokens: float, evicted: float) -> float:
    """Evict `tokens` from the queue's head, oldest first; the evicted total after it
    (each piece added to the running total, as the harness adds them)."""
    left = tokens
    while left > 0 and queue:
        head = queue[0]
        if head[1] <= left:
            left -= head[1]
            evicted += head[1]
            queue.popleft()
        else:
            head[1] -= left
            evicted += left
            left = 0
    return evicted


def _file_access(by_family: dict):
    total = 0
    for family in FILE_ACCESS:
        total += by_family[family]
    return total


def occupancy(context, window_tokens: int) -> Occupancy:
    """The occupancy of a run from its context steps (core.run_log)."""
    gaps, prompts, compactions, chars, results = _gaps(context)
    chars_per_token, calibrated = calibrate(gaps)
    residual, contributed, evicted = _resident(gaps, chars_per_token)
    rounded = {f: js_round(v) for f, v in residual.items()}
    return Occupancy(
        final_context=prompts[-1] if prompts else 0, fixed=prompts[0] if prompts else 0,
        window_tokens=window_tokens, chars_per_token=chars_per_token, calibrated=calibrated,
        dispersion=dispersion(gaps, chars_per_token), requests=len(prompts), compactions=compactions,
        evicted=js_round(evicted), residual=Families(**rounded),
        contributed=Families(**{f: js_round(v) for f, v in contributed.items()}),
        chars=Families(**chars), results=Families(**results),
        residual_file_access=js_round(_file_access(residual)),
        contributed_file_access=js_round(_file_access(contributed)),
        chars_file_access=_file_access(chars), results_file_access=_file_access(results),
    )


def _share(part: int, whole: int) -> float:
    return part / whole if whole > 0 else 0.0


# The sweep's scalar columns (docs/sweep.md "Run and occupancy columns"): tokens rounded as printed,
# shares as ratios; the retrieval residual is codegraph's plus file access's.
OCCUPANCY_COLUMNS = (
    "occupancy_window_tokens", "occupancy_final_context", "occupancy_fixed", "occupancy_base",
    "occupancy_chars_per_token", "occupancy_calibrated", "occupancy_dispersion", "occupancy_requests",
    "occupancy_compactions", "occupancy_evicted",
    *(f"occupancy_{family}" for family in (*FAMILIES, "file_access")),
    "occupancy_retrieval", "occupancy_retrieval_share",
)


FAMILY_COLUMNS = tuple(f"occupancy_{family}" for family in FAMILIES)


class OccupancyMetric:
    name = "occupancy"
    columns = OCCUPANCY_COLUMNS

    def row(self, o: Occupancy) -> dict:
        retrieval = o.residual.codegraph + o.residual_file_access
        values = {
            "occupancy_window_tokens": o.window_tokens, "occupancy_final_context": o.final_context,
            "occupancy_fixed": o.fixed, "occupancy_base": o.base, "occupancy_chars_per_token": o.chars_per_token,
            "occupancy_calibrated": o.calibrated, "occupancy_dispersion": o.dispersion,
            "occupancy_requests": o.requests, "occupancy_compactions": o.compactions, "occupancy_evicted": o.evicted,
        }
        residual = o.residual
        values.update(zip(FAMILY_COLUMNS, [getattr(residual, family) for family in FAMILIES]))
        values.update(occupancy_file_access=o.residual_file_access, occupancy_retrieval=retrieval,
                      occupancy_retrieval_share=_share(retrieval, o.final_context))
        return values  # in OCCUPANCY_COLUMNS' order: corpus/measured.row_of takes it as it is

    def measure(self, transcript, options: MetricOptions) -> Optional[Occupancy]:
        """None when the transcript's format logs no prompt sizes (a Codex or Gemini session)."""
        log = transcript.run_log
        if log is None or log.context is None:
            return None
        return occupancy(log.context, options.window_tokens)

    def as_json(self, o: Optional[Occupancy]) -> Optional[dict]:
        if o is None:
            return None
        families = {}
        for family in FAMILIES:
            families[family] = _family_json(o, getattr(o.residual, family), getattr(o.contributed, family),
                                            getattr(o.chars, family), getattr(o.results, family))
        families["file_access"] = _family_json(o, o.residual_file_access, o.contributed_file_access,
                                               o.chars_file_access, o.results_file_access)
        return {
            "window_tokens": o.window_tokens,
            "final_context": o.final_context, "final_context_share_of_window": o.final_context / o.window_tokens,
            "fixed": o.fixed, "base": o.base,
            "chars_per_token": o.chars_per_token, "calibrated": o.calibrated, "dispersion": o.dispersion,
            "requests": o.requests, "compactions": o.compactions, "evicted": o.evicted,
            "families": families,
        }


def _family_json(o: Occupancy, residual: int, contributed: int, chars: int, results: int) -> dict:
    return {
        "residual": residual, "contributed": contributed, "chars": chars, "results": results,
        "share_of_context": _share(residual, o.final_context), "share_of_window": residual / o.window_tokens,
    }


@hookimpl
def citeledger_register_metrics(register):
    register(OccupancyMetric)
