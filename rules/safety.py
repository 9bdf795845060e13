"""Which ruleset patterns may run: those RE2 runs in linear time, within its budget.

Rulesets are untrusted and Python's `re` has no time limit, so a pattern such
as `(a+)+$` or `\\w+\\w+x` could hang a sweep on one long answer. A ruleset (or
`compare --key`) pattern runs on RE2 through core.patterns, which translates
re syntax to RE2 exactly, or is refused: RE2 decides what it can run in
linear time, and core.patterns' limits (nesting depth, program size, memory)
keep it within budget. There is no heuristic about backtracking shapes.

One exception: a pattern a shipped ruleset uses verbatim runs on `re` when
RE2 cannot express it. That is lines.yaml's fenced-block pattern, whose
backreference (a closing fence equal to the opening one) no regular
expression can state; it is quadratic only in the number of unclosed fence
lines of an answer (docs/decisions.md).
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import yaml

from citeledger.core import NotLinear, compile_linear


class UnsafePattern(re.error):
    """A pattern refused because RE2 cannot run it as re would, in budget (an
    re.error, so callers that report bad patterns report this one too)."""


@functools.lru_cache(maxsize=1)
def shipped_patterns() -> frozenset:
    """Every string value of the shipped rulesets: a ruleset may reuse one verbatim."""
    found: set = set()

    def walk(value):
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for entry in resources.files("citeledger.rulesets").iterdir():
        if entry.name.endswith(".yaml"):
            walk(yaml.safe_load(entry.read_text("utf-8")))
    return frozenset(found)


def compile_ruleset_pattern(text: str):
    """The pattern to run for `text`: a LinearPattern, or re for a shipped pattern RE2 cannot express.

    Raises re.error for a pattern that is not re syntax, UnsafePattern (saying
    why) for one RE2 cannot run exactly and within budget. The shipped
    rulesets are read only when RE2 refuses a pattern: nearly every pattern
    runs on RE2, and reading all the files costs start-up time.
    """
    try:
        return compile_linear(text, strict=True)
    except NotLinear as exc:
        if text in shipped_patterns():
            return re.compile(text, re.ASCII)
        raise UnsafePattern(f"RE2 cannot run it in linear time as re would: {exc}") from None
