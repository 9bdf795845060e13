"""The explore sufficiency judged where a corpus session is read (score_corpus's workers).

The judging runs on the transcript the session's scoring read (citeledger.corpus
`extra`): the transcript is not read again, and only the numbers come back
(Sufficiency.counted: no per-call list), whatever other `extra` the command
already runs (the diagnostic join) riding along. Pooling them is the faces' job.
"""

from __future__ import annotations

import attrs

from citeledger.harness.sufficiency import sufficiency


class Judged:
    """score_corpus's `extra`: (what `inner` made, the session's sufficiency numbers). Picklable."""

    def __init__(self, inner=None, tool=None):
        self.inner, self.tool = inner, tool  # the explore tool: the first ruleset's

    def __call__(self, ref, transcript, score):
        made = self.inner(ref, transcript, score) if self.inner is not None else None
        return made, sufficiency(transcript, self.tool).counted()


def judged(extra, on: bool, ruleset):
    """`extra` with the sufficiency added when `on` (explore calls are the calls of `ruleset`'s
    explore tool: the one the transcript is read with), else `extra` as it was."""
    return Judged(extra, ruleset.explore_tool) if on else extra


def split(outcome, on: bool):
    """(the outcome as its command knew it, its sufficiency or None): an unread session has none."""
    if not on:
        return outcome, None
    made, counted = outcome.extra if outcome.extra is not None else (None, None)
    return attrs.evolve(outcome, extra=made), counted
