"""What a Gemini CLI session logs of its requests: each model message's `tokens`
(docs/gemini.md "Token counts"), as the run log's requests (core/run_log.py).

A `gemini` message carries `tokens: {input, output, cached, thoughts, tool,
total}` (the API's usage metadata: `input` is the prompt, cached tokens
included; `tool` the tool-use prompt; `thoughts` the thinking output;
`total` their sum). Read as a Request: the prompt is input + tool (its
cached part as cache reads), the output is output + thoughts, so a
request's processed tokens are its `total`. A message without `tokens`
logged none: a session none of whose messages has them has no run log
(absent, never 0). Nothing else of a run log (results, an init event, the
prompt's growth between requests) is in a session file. A headless
stream-json run logs one `result` event (its status and duration) and no
request's usage.
"""

from __future__ import annotations

from typing import Optional

from citeledger.core import Origin, Request, ResultEvent, RunLog, Usage, as_double


def _count(value) -> int:
    """A logged count: a non-negative integer, as JavaScript holds it (past 2^53 a float: infra/outside.py)."""
    return as_double(value) if type(value) is int and value >= 0 else 0


def request_of(tokens, origin: Origin) -> Optional[Request]:
    """A message's `tokens` as one request; None when it logs none (no object)."""
    if not isinstance(tokens, dict):
        return None
    prompt = _count(tokens.get("input")) + _count(tokens.get("tool"))
    cached = min(_count(tokens.get("cached")), prompt)
    out = _count(tokens.get("output")) + _count(tokens.get("thoughts"))
    return Request(usage=Usage(input_tokens=prompt - cached, cache_read_tokens=cached, output_tokens=out),
                   origin=origin)


def run_log_of(requests: list) -> Optional[RunLog]:
    return RunLog(usage_only=tuple(requests)) if requests else None


def result_event_of(event: dict, origin: Origin) -> ResultEvent:
    """A stream-json `result` event (`status`, `stats.duration_ms`) as the run log's result
    event: its status as the subtype, its duration; Gemini logs no cost (None)."""
    stats = event.get("stats")
    duration = stats.get("duration_ms") if isinstance(stats, dict) else None
    status = event.get("status")
    return ResultEvent(subtype=status if type(status) is str else None,
                       duration_ms=as_double(duration) if type(duration) in (int, float) and duration >= 0 else None,
                       cost_usd=None, origin=origin)


def stream_run_log(results: list) -> Optional[RunLog]:
    """A headless run's log: its result events (no request's usage is logged per request)."""
    return RunLog(result_events=tuple(results)) if results else None
