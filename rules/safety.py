"""Which ruleset patterns may run: those RE2 runs in linear time, within its budget.

Rulesets are untrusted and Python's `re` has no time limit, so a pattern such
as `(a+)+$` or `\\w+\\w+x` could hang a sweep on one long answer. A ruleset (or
`compare --key`) pattern is RE2 syntax and runs on RE2 (citeledger.infra.re2text),
or is refused: RE2 decides what it can run in linear time, and its memory
budget and the adapter's program-size limit keep it within budget. There is
no heuristic about backtracking shapes and no exception: a pattern RE2 cannot
run is refused, a shipped ruleset's included (none needs one; the quote
channel's fenced blocks, whose closing fence must equal the opening one, are
found in Python: channels/quote.py).
"""

from __future__ import annotations

import re

from citeledger.core import BadPattern, NotLinear, compile_linear


class UnsafePattern(re.error):
    """A pattern refused because RE2 cannot run it in linear time, in budget (an
    re.error, so callers that report bad patterns report this one too)."""


def compile_ruleset_pattern(text: str):
    """The LinearPattern (RE2) to run for `text`.

    Raises re.error for a pattern that is not RE2 syntax, UnsafePattern (saying
    why) for one that asks for what RE2 lacks or exceeds the budget.
    """
    try:
        return compile_linear(text)
    except NotLinear as exc:
        raise UnsafePattern(f"RE2 cannot run it in linear time: {exc}") from None
    except BadPattern as exc:
        raise re.error(f"not RE2 syntax: {exc}") from None
