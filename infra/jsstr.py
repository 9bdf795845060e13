"""JavaScript string semantics the reference metric depends on.

The reference is a JavaScript program. Its lengths are UTF-16 code units, its
`trim()` strips a specific set of characters, its `toFixed(1)` rounds the exact
binary value half away from zero, and its `toLocaleString('en-US')` groups
thousands. Python differs on each; these helpers are the JavaScript behaviour.
"""

from __future__ import annotations

import math
import re
import sys
from decimal import ROUND_HALF_UP, Decimal

# ECMAScript WhiteSpace (incl. every Unicode Zs) plus LineTerminator.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
# What `^`, `$` and `.` treat as a line end in a JavaScript regular expression.
LINE_TERMINATORS = "\n\r\u2028\u2029"

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def is_blank(text: str) -> bool:
    return not js_trim(text)


def _compact_base():
    """What sys.getsizeof gives a non-ASCII str besides its characters, when it tells how wide
    its storage is (CPython's PEP 393 layout: (length + 1) x 1, 2 or 4 bytes); else None."""
    try:
        base = sys.getsizeof("\xe9") - 2
        for probe, width in (("\xe9" * 7, 1), ("\u2014" * 7, 2), ("\U0001f600" * 7, 4)):
            if sys.getsizeof(probe) != base + 8 * width:
                return None
        return base
    except TypeError:  # an interpreter without sizes
        return None


_COMPACT_BASE = _compact_base()


def utf16_len(text: str) -> int:
    """JavaScript's `.length`: characters outside the BMP count two."""
    if text.isascii():
        return len(text)
    if _COMPACT_BASE is not None and type(text) is str:
        n = len(text)
        # Stored one or two bytes a character: no character outside the BMP can be in
        # it (a lone surrogate is one unit either way). Answered in constant time.
        if sys.getsizeof(text) - _COMPACT_BASE < 4 * (n + 1):
            return n
    # Encoding is a C loop, ~10x faster than finding astral characters with a
    # regex; surrogatepass gives a lone surrogate (from a JSON escape) one unit.
    return len(text.encode("utf-16-le", "surrogatepass")) >> 1


def js_slice(text: str, end: int) -> str:
    """JavaScript's `text.slice(0, end)`: the first `end` UTF-16 units (a pair cut in two
    leaves its lead half, a lone surrogate)."""
    if text.isascii() or utf16_len(text) <= end:
        return text[:end]
    return text.encode("utf-16-le", "surrogatepass")[: 2 * end].decode("utf-16-le", "surrogatepass")


def js_round(value: float) -> int:
    """JavaScript's Math.round: to the nearest integer, a half toward +infinity
    (-2.5 -> -2; 0.49999999999999994 -> 0, which floor(x + 0.5) gets wrong). ±Infinity, NaN
    and a float past 2^52 (already integral) are themselves, as there: never a Python int past 2^53."""
    if type(value) is float and not -_INTEGRAL < value < _INTEGRAL:
        return value
    whole = math.floor(value)
    return whole + 1 if value - whole >= 0.5 else whole


def to_fixed(value: float, digits: int = 1) -> str:
    """JavaScript's Number.prototype.toFixed.

    toFixed rounds the exact binary value of the double, ties away from zero;
    Decimal(float) is that exact value, so ROUND_HALF_UP on it matches. From 1e21 in
    magnitude, and for ±Infinity and NaN, it is String(x): `1e+30`, `Infinity`.
    """
    if not -1e21 < value < 1e21:
        return _js_text(value)
    exact = Decimal(value)
    quantum = Decimal(1).scaleb(-digits)
    rounded = exact.quantize(quantum, rounding=ROUND_HALF_UP)
    text = f"{rounded:.{digits}f}"
    # JavaScript prints (-0).toFixed(1) as "0.0" and -0.04.toFixed(1) as "-0.0".
    if value == 0:
        text = text.lstrip("-")
    return text


def thousands(n: int) -> str:
    """`n.toLocaleString('en-US')` for integers: a float past 2^53 as ICU writes it (its shortest
    digits, then zeros: 1e30 is 1,000,...,000), ±Infinity as `∞`, `-∞`, NaN as `NaN`."""
    if type(n) is not float:
        return f"{n:,}"
    if n != n:
        return "NaN"
    if n in (math.inf, -math.inf):
        return "∞" if n > 0 else "-∞"
    if n.is_integer():
        return f"{int(Decimal(repr(n))):,}"
    return f"{n:,}"


_INTEGRAL = 2.0**52  # every double from here on is an integer


def _js_text(value) -> str:
    """String(x) of a number."""
    from citeledger.infra.jsonl import js_string

    return "NaN" if value != value else js_string(value)


def percent(ratio: float) -> str:
    """The reference's percentage: (ratio * 100).toFixed(1) + '%'."""
    return to_fixed(ratio * 100, 1) + "%"


def points(delta) -> str:
    """A difference of ratios in percentage points, signed, rounded as toFixed(1).

    One minus sign in every command and page: ASCII "-" (it pastes into a
    spreadsheet or Python as a number; U+2212 does not); no sign on 0.0."""
    if delta is None:
        return "—"
    text = to_fixed(abs(delta) * 100, 1)
    if text == "0.0":
        return text
    return ("+" if delta > 0 else "-") + text
