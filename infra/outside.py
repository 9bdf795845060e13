"""The one rule for numbers read from outside (a transcript's usage counts, durations and costs, a
sidecar's scores): JavaScript's doubles, checked where they are read.

JSON.parse reads every number as a double: `1e400` is Infinity, 10^30 is 1e+30. The readers keep
a number as the reference holds it (`as_double`: an int while it is exact, else a float, never a
Python int past 2^53), so text views print what node prints (`Infinity`, `1e+30`; infra/jsstr.py's
formatters are total). A number that is not finite or whose magnitude passes 2^53
(Number.MAX_SAFE_INTEGER + 1: past it a count is no longer exact) is out of range: the reader warns
once per line and field (`out_of_range`), and JSON and CSV write it, and any figure made from it, as
null (`json_safe`, report/jsonreport.py; `csv_value`, report/tables.py).
"""

from __future__ import annotations

import math

MAX_EXACT = 2**53
RANGE = "a finite number of magnitude at most 9,007,199,254,740,992"


def in_range(x) -> bool:
    """Finite, magnitude at most 2^53 (False for NaN and ±Infinity)."""
    return -MAX_EXACT <= x <= MAX_EXACT


def as_double(value):
    """An int or float read from JSON as JavaScript holds it: an int while exact and integral, else a float."""
    if type(value) is int:
        return value if -MAX_EXACT <= value <= MAX_EXACT else _float(value)
    if value.is_integer() and -MAX_EXACT <= value <= MAX_EXACT:
        return int(value)
    return value


def _float(value: int) -> float:
    try:
        return float(value)
    except OverflowError:  # JSON.parse reads a huge integer as Infinity
        return math.inf if value > 0 else -math.inf


def out_of_range(field: str, value) -> str:
    """The warning's text (its file and line are the caller's)."""
    from citeledger.infra.jsonl import js_string

    return f"{field}: {js_string(value)} is out of range ({RANGE}): null in JSON and CSV"


def json_safe(value):
    """`value` with every number out of range replaced by None (containers copied as dicts and lists;
    without recursion, so a value nested as deep as orjson writes cannot exhaust the stack)."""
    root = [value]
    stack = [(root, 0, value)]
    while stack:
        holder, key, item = stack.pop()
        kind = type(item)
        if kind is dict:
            copy = holder[key] = dict(item)
            stack.extend((copy, k, v) for k, v in item.items())
        elif kind is list or kind is tuple:
            copy = holder[key] = list(item)
            stack.extend((copy, i, v) for i, v in enumerate(item))
        elif (kind is int or kind is float) and not in_range(item):
            holder[key] = None
    return root[0]
