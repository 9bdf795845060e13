"""A benchmark's arms and questions read off a session's path: `--arm-pattern REGEX`.

The pattern (RE2, as a ruleset's) names the `question` and the `arm` with
named groups; `sweep --arm-pattern` labels every session record with them and
`compare --arm-pattern` pairs the arms by question (engine/compare.py's compare_arm_pair).
"""

from __future__ import annotations

import os
import re
from typing import Optional

import attrs

from citeledger.core.errors import UserError
from citeledger.engine.limits import as_typed
from citeledger.rules.loader import compile_pattern
from citeledger.rules.safety import UnsafePattern

GROUPS = ("question", "arm")
# What sweep --arm-pattern adds to every session row and CSV row.
ARM_COLUMNS = ("arm", "question")


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


def labels_of(pattern, key: str) -> Optional[tuple[str, str]]:
    """(question, arm) of a session by its path relative to the root, or None when unmatched."""
    m = pattern.search(key.replace(os.sep, "/"))
    if m is None or m.group("question") is None or m.group("arm") is None:
        return None
    return m.group("question"), m.group("arm")


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


def discover_arms(root: str, pattern, exclude) -> tuple[list, list, list]:
    """(labelled refs, unmatched session keys, discovery warnings) under `root`."""
    from citeledger.corpus import discover

    refs, warnings = discover([root], exclude)
    if not refs:
        raise UserError(f"{root}: no sessions found")
    kept, unmatched = labelled(refs, pattern)
    return kept, unmatched, list(warnings)


def check_arms_found(root: str, arms, refs) -> None:
    """Every arm asked for labels a session under `root`: a mistyped arm would compare one arm with nothing."""
    found = {ref.arm for ref in refs}
    for arm in arms:
        if arm not in found:
            raise UserError(f"--arms {arm}: no session under {root} whose path --arm-pattern labels "
                            f"with that arm (arms found: {', '.join(sorted(found)) or 'none'})")
