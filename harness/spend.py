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

import bisect
import collections
import math
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


# Pairs listed per starved file: a report of 1,000 starved and 1,000 overspent files is a million
# pairs; each starved file lists its first PAIRS_PER_FILE (in the reference's order) and counts the rest.
PAIRS_PER_FILE = 20


@attrs.frozen
class Starvations:
    """A report's starvation pairs: at most `per_file` listed per starved file, in the reference's
    order (each starved file, then each overspent one, in the report's order), and every starved
    file's count of pairs (`counts`, path -> pairs, listed or not)."""

    flags: tuple  # of Starvation
    counts: tuple  # ((starved path, pairs), ...) in the report's order

    def more(self) -> dict:
        """Starved path -> pairs not listed (only the files with some)."""
        listed: dict = {}
        for flag in self.flags:
            listed[flag.starved] = listed.get(flag.starved, 0) + 1
        return {path: n - listed.get(path, 0) for path, n in self.counts if n > listed.get(path, 0)}


def _threshold(value: float) -> float:
    # `o.score * 2 > s.score` is false for NaN on either side: a NaN starved score takes every
    # overspent file, a NaN overspent score is taken by every starved file.
    return math.inf if value != value else value


def _key(value: float) -> float:
    return -math.inf if value != value else value


def starvations(files: Sequence, per_file: int = PAIRS_PER_FILE) -> Starvations:
    """The (starved, overspent) pairs among one report's files, counted per starved file and listed
    up to `per_file` each, in O(n log n + pairs listed): never every pair built."""
    spenders = [f for f in files if _spender(f)]
    starved = [s for s in spenders if s.allowance >= MIN_RESERVED and s.final_chars < s.allowance * STARVED_SHARE]
    over = sorted(((_key(o.score * SCORE_RATIO), i) for i, o in enumerate(spenders)
                   if o.final_chars > o.allowance * OVERSPEND_RATIO), key=lambda item: item[0])
    paths = collections.Counter(f.path for f in spenders)
    repeated = {path for path, n in paths.items() if n > 1}  # a path given twice in one report: almost never
    taken: list = []  # report positions of the overspent files under the current threshold, sorted
    listed: dict = {}
    counts: dict = {}
    at = 0
    for s in sorted(starved, key=lambda f: _threshold(f.score)):
        while at < len(over) and over[at][0] <= _threshold(s.score):
            bisect.insort(taken, over[at][1])
            at += 1
        same = sum(1 for i in taken if spenders[i].path == s.path) if s.path in repeated else 0
        mine = [spenders[i] for i in taken[:per_file + same] if spenders[i].path != s.path]
        counts[id(s)] = len(taken) - same
        listed[id(s)] = [_pair(s, o) for o in mine[:per_file]]
    flags = tuple(flag for s in starved for flag in listed[id(s)])
    return Starvations(flags=flags, counts=tuple((s.path, counts[id(s)]) for s in starved if counts[id(s)]))


def _pair(s, o) -> Starvation:
    return Starvation(
        starved=s.path, starved_score=s.score, starved_reserved=s.allowance, starved_spent=s.final_chars,
        overspent=o.path, overspent_score=o.score, overspent_reserved=o.allowance, overspent_spent=o.final_chars,
    )


def starvation(files: Sequence, per_file: int = PAIRS_PER_FILE) -> tuple[Starvation, ...]:
    """The (starved, overspent) pairs among one report's files, in the report's order: up to
    `per_file` for each starved file (`starvations` counts the rest)."""
    return starvations(files, per_file).flags


def starved_paths(files: Sequence) -> frozenset:
    """The files that are the starved side of some pair."""
    return frozenset(path for path, _ in starvations(files, per_file=0).counts)
