"""A benchmark's arms and questions read off a session's path: `--arm-pattern REGEX`.

The pattern (RE2, as a ruleset's) names the `question` and the `arm` with
named groups; `sweep --arm-pattern` labels every session record with them and
`compare --arm-pattern` pairs the arms by question (cli/commands/arm_pattern.py).
"""

from __future__ import annotations

import re

import attrs

from citeledger.core.errors import UserError
from citeledger.cli.commands.common import as_typed
from citeledger.rules.loader import compile_pattern
from citeledger.rules.safety import UnsafePattern
from citeledger.engine.arms import labels_of

GROUPS = ("question", "arm")


def arm_pattern(text: str, flag: str = "--arm-pattern"):
    """The pattern (RE2, as a ruleset's), with its named groups `question` and `arm`."""
    try:
        pattern = compile_pattern(text)
    except UnsafePattern as exc:
        raise UserError(f"{flag} {as_typed(text)}: refused ({exc})")
    except re.error as exc:
        raise UserError(f"{flag} {as_typed(text)}: not a regular expression ({exc})")
    missing = [g for g in GROUPS if g not in pattern.groupindex]
    if missing:
        raise UserError(f"{flag} {as_typed(text)}: needs the named group(s) {', '.join(missing)} "
                        "(?P<question>...) and (?P<arm>...)")
    return pattern


def labelled(refs, pattern) -> tuple[list, list]:
    """(refs the pattern labels, each with arm and group = question; keys of those it does not)."""
    kept, unmatched = [], []
    for ref in refs:
        found = labels_of(pattern, ref.key)
        if found is None:
            unmatched.append(ref.key)
            continue
        question, arm = found
        kept.append(attrs.evolve(ref, arm=arm, group=question))
    return kept, unmatched
