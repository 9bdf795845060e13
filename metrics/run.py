"""Run basics: what the harness says about a run before its feedback metrics.

The codegraph tools the init event exposed and the MCP cold-start race (a
call answered "No such tool available": the agent fired before the server had
registered its tools, so the run measures startup, not steady state);
codegraph CLI contamination (a Bash command that runs codegraph's binary: an
attempt, and RETURNED OUTPUT when its result is no error); the tool calls, by
name in first-seen order and one by one with the detail the harness prints;
the result events (subtype, duration, cost, one per segment); the requests
(turns) and the tokens they processed (every request's prompt and output,
counted once per message id; not `result.usage`, which current Claude Code
gives for the last turn only). As parse-run.mjs prints them.
"""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.core import (
    FAMILIES, MetricOptions, hookimpl, is_codegraph_tool, js_slice, js_stringify, runs_codegraph_cli, tool_family,
)

# How much of each input the numbered list shows (UTF-16 units).
DESCRIPTION_UNITS = 40  # a subagent's description
QUERY_UNITS = 60  # a codegraph call's JSON-quoted query
COMMAND_UNITS = 50  # a Bash command
SUBAGENT_TOOL = "Task"
# Tool calls the `tools` count leaves out: loading a deferred tool's schema is no retrieval.
UNCOUNTED_PREFIX = "ToolSearch"


@attrs.frozen
class ToolCall:
    """One tool call as the numbered list shows it: its name, then `detail` when not None.

    The detail is made from the call's `use` when read (the numbered list, `score --json`):
    a sweep's rows count calls and never pay for it."""

    name: str
    text: Optional[str] = None  # the detail given as it is (a record built by hand)
    use: object = attrs.field(default=None, eq=False, repr=False)  # core.ToolUse: the detail made from it

    @property
    def detail(self) -> Optional[str]:
        return self.text if self.use is None else detail(self.use)

    def line(self) -> str:
        shown = self.detail
        return self.name if shown is None else f"{self.name} {shown}"


@attrs.frozen
class CliCalls:
    """Bash calls that ran codegraph's CLI: every attempt, and those whose result was no error."""

    attempts: int
    returned: Optional[int]  # None: the format logs no tool results

    @property
    def blocked(self) -> Optional[int]:
        return None if self.returned is None else self.attempts - self.returned


@attrs.frozen
class RunBasics:
    tools_exposed: Optional[int]  # codegraph tools of the last init event; None: no init event
    raced: Optional[bool]  # None: the format logs no tool results
    cli: CliCalls
    calls: tuple[ToolCall, ...]
    segments: Optional[tuple[Optional[str], ...]]  # each result event's subtype; None: not logged
    duration_s: Optional[float]
    cost_usd: Optional[float]
    turns: Optional[int]  # requests, once per message id; None: not logged
    tokens_processed: Optional[int]

    def by_name(self) -> dict:
        """Calls per tool name, names in first-seen order."""
        counts: dict = {}
        for call in self.calls:
            counts[call.name] = counts.get(call.name, 0) + 1
        return counts

    def by_family(self) -> dict:
        counts = dict.fromkeys(FAMILIES, 0)
        for call in self.calls:
            counts[tool_family(call.name)] += 1
        return counts

    @property
    def tools(self) -> int:
        """Calls, less the ToolSearch ones."""
        # `line()` starts with the name, and no detail comes before it: the name says.
        return sum(1 for call in self.calls if not call.name.startswith(UNCOUNTED_PREFIX))

    @property
    def codegraph_calls(self) -> int:
        return sum(1 for call in self.calls if is_codegraph_tool(call.name))

    @property
    def subtype(self) -> Optional[str]:
        """The last result event's subtype."""
        return self.segments[-1] if self.segments else None

    @property
    def ok(self) -> Optional[bool]:
        """Every segment ended in success (False when none ended)."""
        if self.segments is None:
            return None
        return bool(self.segments) and all(s == "success" for s in self.segments)


def detail(use) -> Optional[str]:
    """What the numbered list prints after a call's name (parse-run.mjs's rules)."""
    name = use.name
    if name == SUBAGENT_TOOL:
        kind = use.subagent_type if use.subagent_type is not None else "?"
        return f"[subagent_type={kind}] {js_slice(use.description or '', DESCRIPTION_UNITS)}"
    if is_codegraph_tool(name):
        asked = next((v for v in (use.query, use.task, use.symbol) if v is not None), "")
        return js_slice(js_stringify(asked), QUERY_UNITS)
    if name == "Bash":
        return js_slice(use.command or "", COMMAND_UNITS)
    if name == "Read":
        return (use.file_path or "").rsplit("/", 1)[-1]
    return None


def _calls(transcript) -> tuple[list, set, int]:
    """The assistant events' tool calls (lines a JSON parser refuses left out), the keys of the
    CLI attempts, and how many attempts there were."""
    skipped = set(transcript.bom_lines)
    calls, cli, attempts = [], set(), 0
    for use in transcript.tool_uses:
        if not use.assistant or (skipped and use.origin in skipped):
            continue
        calls.append(ToolCall(use.name, None, use))  # positional (name, text, use): one per call of a corpus
        if use.name == "Bash" and runs_codegraph_cli(use.command or ""):
            attempts += 1
            if use.key is not None:  # an id that is an object or a list matches no result
                cli.add(use.key)
    return calls, cli, attempts


def run_basics(transcript) -> RunBasics:
    calls, cli_keys, attempts = _calls(transcript)
    log = transcript.run_log
    outputs = log.tool_outputs() if log is not None else None
    requests = log.requests() if log is not None else None
    results = log.result_events if log is not None else None
    exposed = None
    if log is not None and log.init_tools is not None:
        exposed = sum(1 for tool in log.init_tools if is_codegraph_tool(tool))
    processed = None
    if requests is not None:
        processed = 0
        for request in requests:
            processed += request.usage.processed
    return RunBasics(
        tools_exposed=exposed,
        raced=None if outputs is None else any(o.no_such_tool for o in outputs),
        cli=CliCalls(attempts=attempts,
                     returned=None if outputs is None else sum(1 for o in outputs if o.key in cli_keys and not o.error)),
        calls=tuple(calls),
        segments=None if results is None else tuple(r.subtype for r in results),
        duration_s=None if not _logged(results, "duration_ms") else _total(r.duration_ms for r in results) / 1000,
        cost_usd=None if not _logged(results, "cost_usd") else _total(r.cost_usd for r in results),
        turns=None if requests is None else len(requests),
        tokens_processed=processed,
    )


def _logged(results, field: str) -> bool:
    """The format logs the figure: no result event (a killed run) sums to 0, as the harness's;
    result events none of which logs it (a Gemini run's cost) are absent, not 0."""
    return results is not None and (not results or any(getattr(r, field) is not None for r in results))


def _total(values) -> float:
    """A sum in order, a value not logged counting 0 (as the harness's `|| 0`)."""
    total = 0
    for value in values:
        total += value or 0
    return total


# The sweep's scalar columns (docs/sweep.md "Run and occupancy columns").
RUN_COLUMNS = (
    "run_tools_exposed", "run_raced", "run_ok", "run_subtype", "run_segments", "run_turns", "run_duration_s",
    "run_tokens_processed", "run_cost_usd", "run_tool_calls", "run_tools", "run_codegraph_calls",
    *(f"run_calls_{family}" for family in FAMILIES), "run_cli_attempts", "run_cli_returned",
    # By name, as compare-arms.mjs counts its Read, Grep/Glob and Bash rows (a family adds NotebookRead, BashOutput).
    "run_named_read", "run_named_grep_glob", "run_named_bash",
)


FAMILY_COLUMNS = tuple(f"run_calls_{family}" for family in FAMILIES)


class RunMetric:
    name = "run"
    columns = RUN_COLUMNS

    def row(self, r: RunBasics) -> dict:
        names = r.by_name()  # one pass over the calls; the other counts per distinct name
        families = dict.fromkeys(FAMILIES, 0)
        tools = codegraph = 0
        for name, n in names.items():
            families[tool_family(name)] += n
            tools += 0 if name.startswith(UNCOUNTED_PREFIX) else n
            codegraph += n if is_codegraph_tool(name) else 0
        values = {
            "run_tools_exposed": r.tools_exposed, "run_raced": r.raced, "run_ok": r.ok, "run_subtype": r.subtype,
            "run_segments": None if r.segments is None else len(r.segments), "run_turns": r.turns,
            "run_duration_s": r.duration_s, "run_tokens_processed": r.tokens_processed, "run_cost_usd": r.cost_usd,
            "run_tool_calls": len(r.calls), "run_tools": tools, "run_codegraph_calls": codegraph,
        }
        values.update(zip(FAMILY_COLUMNS, families.values()))
        values.update(run_cli_attempts=r.cli.attempts, run_cli_returned=r.cli.returned, run_named_read=names.get("Read", 0),
                      run_named_grep_glob=names.get("Grep", 0) + names.get("Glob", 0), run_named_bash=names.get("Bash", 0))
        return values  # in RUN_COLUMNS' order: corpus/measured.row_of takes it as it is

    def measure(self, transcript, options: MetricOptions) -> RunBasics:
        return run_basics(transcript)

    def as_json(self, r: RunBasics) -> dict:
        return {
            "tools_exposed": r.tools_exposed, "raced": r.raced,
            "cli_calls": {"attempts": r.cli.attempts, "returned": r.cli.returned, "blocked": r.cli.blocked},
            "tool_calls": len(r.calls), "tools": r.tools, "codegraph_calls": r.codegraph_calls,
            "by_name": r.by_name(), "by_family": r.by_family(),
            "calls": [{"name": c.name, "detail": c.detail} for c in r.calls],
            "result": None if r.segments is None else {"subtype": r.subtype, "segments": list(r.segments), "ok": r.ok},
            "duration_s": r.duration_s, "turns": r.turns, "tokens_processed": r.tokens_processed, "cost_usd": r.cost_usd,
        }


@hookimpl
def citeledger_register_metrics(register):
    register(RunMetric)
