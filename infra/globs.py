"""Path globs as the command line takes them (--answer, --exclude)."""

from __future__ import annotations

import os
import re

from citeledger.infra.re2text import BadPattern, compile_linear


def glob_pattern(glob: str) -> re.Pattern:
    """`**` matches anything, `*` anything but "/", the rest literally; anchored."""
    parts = re.split(r"(\*\*|\*)", glob)
    body = "".join(".*" if p == "**" else "[^/]*" if p == "*" else re.escape(p) for p in parts)
    # On RE2 (linear time): in re, `**a**a**a…b` against a long path backtracks
    # exponentially. re runs only a glob RE2 cannot (a lone surrogate from a
    # non-UTF-8 argument, which RE2's UTF-8 cannot hold). re.escape's output is
    # RE2 syntax too: a backslash before punctuation or white space is the character.
    try:
        return compile_linear(rf"(?s)\A{body}\z", single=True)
    except BadPattern:
        return re.compile(rf"\A{body}\Z", re.S)


def path_matcher(globs):
    """A test of a relative path against --exclude globs: a glob with a "/" matches the
    whole relative path, one without matches any single path component (as .gitignore)."""
    whole = [glob_pattern(g.strip("/")) for g in globs if "/" in g.strip("/")]
    part = [glob_pattern(g) for g in globs if "/" not in g.strip("/")]

    def matches(rel: str) -> bool:
        rel = rel.replace(os.sep, "/")
        if any(p.match(rel) for p in whole):
            return True
        return any(p.match(c) for c in rel.split("/") for p in part)

    return matches

