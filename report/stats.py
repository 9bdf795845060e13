"""Quantiles, pooled ratios and a bootstrap of a difference of medians.

Quantile method: Hyndman & Fan type 7, linear interpolation between order
statistics (R's default, numpy's default "linear", Excel PERCENTILE.INC):
for sorted x[0..n-1] and probability p, h = (n - 1) * p, and
q = x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).
The median is q(0.5): the middle value, or the mean of the two middle ones.

Bootstrap: percentile interval of median(new*) - median(base*), where base*
and new* are resamples with replacement of each side, drawn independently,
`resamples` times, by numpy's PCG64 seeded with the seed and a digest of the
data (`data_key`: each side's values as IEEE doubles, in order): the same runs
give the same interval in every row, file and folder, whatever the group is
called, and one group's interval does not depend on which others were compared.
"""

from __future__ import annotations

import hashlib
import math
import struct
from typing import Optional, Sequence

import attrs


def quantile(values: Sequence[float], p: float) -> Optional[float]:
    """Type-7 quantile of `values` (None when empty)."""
    if not values:
        return None
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"quantile probability {p} is not in [0, 1]")
    xs = sorted(values)
    h = (len(xs) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def median(values: Sequence[float]) -> Optional[float]:
    return quantile(values, 0.5)


def pooled(parts: Sequence[int], wholes: Sequence[int]) -> Optional[float]:
    """sum(parts) / sum(wholes): every byte weighs the same, whatever session it is in."""
    whole = sum(wholes)
    return sum(parts) / whole if whole else None


@attrs.frozen
class Interval:
    low: float
    high: float
    confidence: float
    resamples: int
    seed: int


def data_key(*sides: Sequence[float]) -> list[int]:
    """Four 32-bit words of the SHA-256 of the sides' values (count, then each value as a
    little-endian double, in order): the data's part of the bootstrap seed. Names and paths never
    enter it."""
    digest = hashlib.sha256()
    for values in sides:
        digest.update(struct.pack(f"<Q{len(values)}d", len(values), *values))
    return list(struct.unpack("<4I", digest.digest()[:16]))


def bootstrap_median_difference(
    base: Sequence[float],
    new: Sequence[float],
    *,
    seed: int = 0,
    resamples: int = 10_000,
    confidence: float = 0.95,
) -> Optional[Interval]:
    """Percentile bootstrap interval of median(new) - median(base) (None if a side is empty)."""
    import numpy as np

    if not base or not new:
        return None
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence {confidence} is not in (0, 1)")
    rng = np.random.Generator(np.random.PCG64([seed, *data_key(base, new)]))
    b = np.asarray(base, dtype=float)
    n = np.asarray(new, dtype=float)
    # Drawn in one order (base then new) so the same seed gives the same interval.
    b_star = _medians(rng, b, resamples)
    n_star = _medians(rng, n, resamples)
    diffs = n_star - b_star
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(diffs, [tail, 1.0 - tail])  # type 7, as quantile() above
    return Interval(float(low), float(high), confidence, resamples, seed)


DRAWS_PER_BLOCK = 1 << 20  # indices drawn at once: memory is this block, not resamples x n


def _medians(rng, values, resamples: int):
    """The medians of `resamples` resamples of `values`, drawn in blocks of rows.

    The generator hands out the same stream whether the rows are drawn at once
    or block by block, so the medians do not depend on the block size.
    """
    import numpy as np

    rows = max(1, DRAWS_PER_BLOCK // len(values))
    out = np.empty(resamples)
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        out[start:stop] = np.median(values[rng.integers(0, len(values), size=(stop - start, len(values)))], axis=1)
    return out
