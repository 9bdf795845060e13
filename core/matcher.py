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


def header_listings(calls, wanted: frozenset, tag_how) -> dict:
    """path -> name -> how the path's headers list the name, for the `wanted` names.

    Over every section of `calls` that has a header and is not meta (as
    Envelope.sections() gives them), in order: each symbol of a wanted name
    adds its kind, each wanted name a render tag lists adds `tag_how(tag)`.
    Paths and names appear as first listed. In C (core/_match.c) when built:
    this loop over every name of every header was the symbol channel's
    largest cost.
    """
    if native is not None:
        return native.listings(calls, wanted, tag_how)
    return pure_header_listings(calls, wanted, tag_how)


def pure_header_listings(calls, wanted: frozenset, tag_how) -> dict:
    listed: dict[str, dict[str, set]] = {}
    # A file returned again under the same header adds nothing (its sets
    # already hold it): list it once. The scoring call's Cuts gives an equal
    # header line one Header object, so identity is the cheap test (hashing a
    # Header hashes every Symbol in Python); the objects live through the
    # loop, so their ids cannot be reused meanwhile.
    seen: set = set()
    for call in calls:
        for section in call.sections:
            header = section.header
            if header is None or section.meta:
                continue
            key = (section.path, id(header))
            if key in seen:
                continue
            seen.add(key)
            names = None
            for sym in header.symbols:
                if sym.name in wanted:
                    names = listed.setdefault(section.path, {}) if names is None else names
                    names.setdefault(sym.name, set()).add(sym.kind)
            for tag in header.tags:
                how = None
                for name in tag.names:
                    if name in wanted:
                        how = tag_how(tag.tag) if how is None else how
                        names = listed.setdefault(section.path, {}) if names is None else names
                        names.setdefault(name, set()).add(how)
    return listed
