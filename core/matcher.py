"""Which implementation matches the shipped citation patterns: C or RE2.

The compiled module `citeledger.core._match` (core/_match.c) is built by
`pip install` where a C compiler exists (setup.py, optional). It matches the
shipped rulesets' citation patterns exactly as re + ASCII and RE2 do, in
linear time; core/patterns.py hands it a pattern only when the pattern's text
and flags equal one it implements. RE2 stays the reference: it runs when the
module is absent or when CITELEDGER_PURE=1, and tests/test_match.py checks
the two agree. Both give the same figures to the byte.
"""

from __future__ import annotations

from citeledger.core.kernel import match as native  # None: RE2 runs (not built, or CITELEDGER_PURE)

# The patterns _match.c implements, by its numbering; each runs there only
# when compiled from exactly this text with exactly re.ASCII.
SHIPPED = {
    r"(?:[\w@.+-]+/)+[\w@.+-]+\.[A-Za-z]\w*": 0,  # path.with_directory
    r"\b[\w@+-]+\.[A-Za-z]\w*": 1,  # path.basename
    r"\b[\w@+-]+(?:\.[\w@+-]+)*\.[A-Za-z]\w*": 2,  # path.basename (corrected)
    r"`([^`\n]+)`": 3,  # symbol.code_span, line_range and quote's too
    r"[A-Za-z_$][\w$]*": 4,  # symbol.token
}

