"""CPU time of a call, for the hostile-input scale cases: the two sizes are compared with each
other (4x the input at most 8x the time), never with a wall-clock threshold."""

from __future__ import annotations

import gc
import time

GROWTH = 4  # the larger input is this many times the smaller
# Linear work grows by 4x, n log n by about 5x, quadratic by 16x: 8 tells them apart with room for a
# machine whose caches two other processes share (6 failed once so, the work linear).
BOUND = 8


def cpu_seconds(call, repeat: int = 3) -> float:
    """The least process_time of `repeat` runs of call() (other processes do not count; the
    least: a run the machine slowed down does not either), the collector off (a collection in
    one run and not another is no cost of `call`)."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.process_time()
            call()
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


def grows_linearly(make, small: int, repeat: int = 3) -> tuple[bool, float, float]:
    """(the time of make(4*small) is at most BOUND times that of make(small), both times). `make(n)` returns
    the call to time, its input built outside the timing."""
    little, large = cpu_seconds(make(small), repeat), cpu_seconds(make(GROWTH * small), repeat)
    return large <= BOUND * little, little, large
