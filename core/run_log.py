"""Records of what a host logged about a run besides its tool traffic.

Claude Code writes, beside the tool uses and results the accountant reads,
each request's token usage, the system events (the init event's tools, a
compaction boundary) and one `result` event per segment (its subtype,
duration and cost). The harness's run basics and its residual context
occupancy are measured from these (metrics/). A reader fills what its format
logs; a field it cannot fill is None (absent), never zero.

The context steps are kept in reading order in one tuple, so the prompt's
growth between two requests is what lies between them:

- `Request`: an assistant request, the first event of a message id not seen
  before (Claude Code writes one event per content block, each with the
  request's usage);
- `Appended`: characters the prompt grew by that are no tool result (the
  assistant's own blocks, a user's text), consecutive ones merged;
- `ToolOutput`: one tool_result block, whatever the tool;
- `Compaction`: a compaction boundary (everything before it left the window).
"""

from __future__ import annotations

from typing import Hashable, Optional, Union

import attrs

from citeledger.core.transcript import Origin

frozen = attrs.frozen


@frozen
class Usage:
    """A request's token counts as logged (the counts of its first event; a count not logged is 0)."""

    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    output_tokens: int = 0

    @property
    def prompt(self) -> int:
        """The whole prompt's size: input, cache read and cache creation tokens."""
        return self.input_tokens + self.cache_read_tokens + self.cache_creation_tokens

    @property
    def processed(self) -> int:
        """Everything the request processed: its prompt and its output."""
        return self.prompt + self.output_tokens


@frozen
class Request:
    """One assistant request and its usage."""

    usage: Usage
    origin: Origin


@frozen
class Appended:
    """Characters (UTF-16 units) appended to the prompt that are no tool result."""

    chars: int


@frozen
class ToolOutput:
    """One tool_result block of any tool.

    `name` is the tool its id named when it was read ("" when none did);
    `key` the id as the tool uses' keys (`ToolUse.key`); `chars` its text's
    length in UTF-16 units; `no_such_tool` says the host answered that the
    tool did not exist (Claude Code's "No such tool available": the MCP
    server had not registered its tools yet).
    """

    name: str
    key: Hashable
    chars: int
    error: bool
    no_such_tool: bool
    origin: Origin


@frozen
class Compaction:
    """A compaction boundary: the window's content before it was replaced by a summary."""

    origin: Origin


ContextStep = Union[Request, Appended, ToolOutput, Compaction]


@frozen
class ResultEvent:
    """One `result` event (a segment's end): None where the event does not say."""

    subtype: Optional[str]
    duration_ms: Optional[float]
    cost_usd: Optional[float]
    origin: Origin


@frozen
class LoggedTokens:
    """Every logged usage summed as parse-session.mjs sums it: each event whose message
    carries a usage, every file of the session (subagents' too), not once per message
    id (Claude Code repeats a request's usage on each of its content blocks).

    `generated` is output tokens, `fresh` input + cache creation, `cached` cache reads.
    """

    generated: float = 0
    fresh: float = 0
    cached: float = 0

    @property
    def billable(self) -> float:
        return self.generated + self.fresh


@frozen
class RunLog:
    """What a reader read of the run beyond the tool traffic (module docstring).

    None in a field: the format does not log it (a Codex rollout has no
    init event's tool list); () is "logged, and there was none".
    """

    context: Optional[tuple[ContextStep, ...]] = None
    init_tools: Optional[tuple[str, ...]] = None  # the last init event's tools, every name
    result_events: Optional[tuple[ResultEvent, ...]] = None
    # The requests of a format that logs their usage but not what each appended
    # (a Codex rollout's token counts); with a context, its Request steps are the requests.
    usage_only: Optional[tuple[Request, ...]] = None
    logged_tokens: Optional[LoggedTokens] = None  # every event's usage summed (LoggedTokens)

    def requests(self) -> Optional[tuple[Request, ...]]:
        if self.context is None:
            return self.usage_only
        return tuple(step for step in self.context if type(step) is Request)

    def tool_outputs(self) -> Optional[tuple[ToolOutput, ...]]:
        if self.context is None:
            return None
        return tuple(step for step in self.context if type(step) is ToolOutput)
