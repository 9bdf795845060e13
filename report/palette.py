"""Every colour the pages and plots draw with, defined once.

A channel is drawn in one colour wherever it appears (a session page under any
ruleset, the sweep and compare pages), chosen by its name and not by its rank
in a ruleset: ranks differ between rulesets, names do not. A channel declares
its colour beside its name (report names no channel); no colour that means a
channel means anything else here (a side of a comparison, a slice, a
histogram).
"""

from __future__ import annotations

import functools
import re
import zlib
from typing import Optional

from citeledger.core import channels

# A channel is drawn in the colour it declares (its class's `colour`, core.channel.Channel);
# one that declares none, or a colour that means something else here, gets one of these,
# by the crc32 of its name: the same on every page, run and machine.
UNDECLARED = ("#bcbd22", "#aec7e8", "#98df8a", "#c5b0d5", "#f7b6d2", "#9edae5")
# A section no channel credited, where it is filled rather than hatched.
NOT_CREDITED = "#bbbbbb"

# Colours that never mean a channel.
SERIES = ("#7f7f7f", "#ff7f0e", "#d62728", "#8c564b", "#393b79", "#637939")  # plot series: baseline, new, ...
SLICES = {"all": "#393b79", "single-question": "#ff7f0e", "multi-turn": "#8c564b"}
HISTOGRAM = {"sessions": "#393b79", "calls": "#ff7f0e"}
CITED, UNCITED = "#126b12", "#8a1c1c"  # the verdict marks (✓, ✗) and the diagnostics plot's dots
# The session page's occupancy bar: each tool family's residual, and the base (prompt + prose).
FAMILIES = {"codegraph": "#6b6ecf", "read": "#e7ba52", "search": "#ad494a", "bash": "#8ca252", "other": "#a55194",
            "base": "#d9d9d9"}


@functools.lru_cache(maxsize=None)
def channel_colour(name: Optional[str]) -> str:
    """The channel's colour; NOT_CREDITED for no channel."""
    if name is None:
        return NOT_CREDITED
    declared = getattr(channels().get(name), "colour", None)
    if isinstance(declared, str) and _HEX.fullmatch(declared.lower()) and declared.lower() not in other_colours():
        return declared.lower()
    return UNDECLARED[zlib.crc32(name.encode("utf-8")) % len(UNDECLARED)]


_HEX = re.compile(r"#[0-9a-f]{6}")


def channel_colours() -> frozenset[str]:
    """Every colour a channel can be drawn in: the installed channels' and the undeclared ones'."""
    return frozenset((*(channel_colour(n) for n in channels()), *UNDECLARED))


def other_colours() -> frozenset[str]:
    """Every colour that means something other than a channel."""
    return frozenset((NOT_CREDITED, *SERIES, *SLICES.values(), *HISTOGRAM.values(), CITED, UNCITED,
                      *FAMILIES.values()))
