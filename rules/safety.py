"""Which ruleset patterns may run: those RE2 runs in linear time, within its budget.

Rulesets are untrusted and Python's `re` has no time limit, so a pattern such
as `(a+)+$` or `\\w+\\w+x` could hang a sweep on one long answer. A ruleset (or
`compare --key`) pattern runs on RE2 through core.patterns, which translates
re syntax to RE2 exactly, or is refused: RE2 decides what it can run in
linear time, and core.patterns' limits (nesting depth, program size, memory)
keep it within budget. There is no heuristic about backtracking shapes and no
exception: a pattern RE2 cannot run is refused, a shipped ruleset's included
(none needs one; the quote channel's fenced blocks, whose closing fence must
equal the opening one, are found in Python: channels/quote.py).
"""

from __future__ import annotations

import re

from citeledger.core import NotLinear, compile_linear


class UnsafePattern(re.error):
    """A pattern refused because RE2 cannot run it as re would, in budget (an
    re.error, so callers that report bad patterns report this one too)."""


def compile_ruleset_pattern(text: str):
    """The LinearPattern (RE2) to run for `text`.

    Raises re.error for a pattern that is not re syntax, UnsafePattern (saying
    why) for one RE2 cannot run exactly and within budget.
    """
    try:
        return compile_linear(text, strict=True)
    except NotLinear as exc:
        raise UnsafePattern(f"RE2 cannot run it in linear time as re would: {exc}") from None
