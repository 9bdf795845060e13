"""What each file of an explore call spent of its reservation, and the starvation pairs.

codegraph's CG-36 sweep (`scripts/agent-eval/probe-file-spend.mjs`, `findStarvation`):
a file's spend is `finalChars / allowance`; a starvation flag is a PAIR, a
file that left most of its reservation unspent while a materially
lower-scoring file spent well over its own. Either alone is legitimate (a
small file has less to say; carry-forward hands its slack down). Only files
the render loop reached take part: a reservation and a render mode other
than `backref`. The thresholds are the reference's.
"""

from __future__ import annotations

from typing import Optional, Sequence

import attrs

STARVED_SHARE = 0.5  # spent less than half its reservation
OVERSPEND_RATIO = 1.5  # spent more than 1.5x its own reservation
SCORE_RATIO = 2  # ...while scoring at most half the starved file's score
MIN_RESERVED = 2000  # a smaller reservation's unspent share means nothing


@attrs.frozen
class Starvation:
    """One flag: `starved` left its reservation unspent while `overspent` spent over its own."""

    starved: str
    starved_score: float
    starved_reserved: int
    starved_spent: int
    overspent: str
    overspent_score: float
    overspent_reserved: int
    overspent_spent: int


def spent(decision) -> Optional[float]:
    """finalChars / allowance; None when the file has no reservation (null or 0)."""
    return decision.final_chars / decision.allowance if decision.allowance else None


def _spender(decision) -> bool:
    return decision.allowance is not None and decision.allowance > 0 and bool(decision.render) \
        and decision.render != "backref"


def starvation(files: Sequence) -> tuple[Starvation, ...]:
    """Every (starved, overspent) pair among one report's files, in the report's order."""
    spenders = [f for f in files if _spender(f)]
    flags = []
    for s in spenders:
        if s.allowance < MIN_RESERVED or s.final_chars >= s.allowance * STARVED_SHARE:
            continue
        for o in spenders:
            if o.path == s.path or o.final_chars <= o.allowance * OVERSPEND_RATIO:
                continue
            if o.score * SCORE_RATIO > s.score:
                continue
            flags.append(Starvation(
                starved=s.path, starved_score=s.score, starved_reserved=s.allowance, starved_spent=s.final_chars,
                overspent=o.path, overspent_score=o.score, overspent_reserved=o.allowance,
                overspent_spent=o.final_chars,
            ))
    return tuple(flags)


def starved_paths(files: Sequence) -> frozenset:
    """The files that are the starved side of some pair."""
    return frozenset(flag.starved for flag in starvation(files))
