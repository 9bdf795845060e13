"""The symbol channel's header listing (moving to channels/symbol.py).

The C matcher of the shipped citation patterns is gone: every ruleset pattern
runs on RE2 through core/patterns.py.
"""

from __future__ import annotations

from citeledger.core.kernel import match as native  # read by header_listings only, until it moves


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
