"""The grep source: `Grep` results, charged per file.

- content mode (`output_mode: content`): each line goes to the file its
  `path:line:` (or `path:`) prefix names; context lines (`path-line-`) to a
  file a match line named, or to the absolute path they name; a search of one file prints no prefix, so its
  lines go to that file (the input's `path`). `--` separators and the tool's
  own lines are meta.
- files-with-matches (the default) and count modes: each listed path (`path`
  or `path:N`) is charged its line; "Found N files", "Found N total
  occurrences ...", "No files found" are meta.

A content line that names no file it can be charged to goes to (unknown),
with a warning. Lines are charged with their newlines: the pieces add up to
the whole result.
"""

from __future__ import annotations

import re

import attrs

from citeledger.core import ResultSource, UNKNOWN, hookimpl
from citeledger.sources.glob import path_lines

_NUMBERED = re.compile(r"(.+?):([0-9]+)[:-]")  # path:12: (a match) or path:12- (rare)
_CONTEXT = re.compile(r"(.+?)-([0-9]+)-")  # path-12- (a context line)
_BARE = re.compile(r"[0-9]+[:-]")  # 12: in a one-file search
_COUNT = re.compile(r"(.+):([0-9]+)\s*")  # path:N (count mode)
# The tool's own lines: summaries, pagination notes, separators.
_OWN = re.compile(r"(?:Found [0-9]+ |No (?:files|matches) found|\[Showing results|--\s*$|\s*$)")


def _plain_path(line: str):
    """The path of a `path:` line (no line numbers): what precedes the first ":", when it holds
    a "." or "/" and no newline; else None. A scan, not re's `([^:\\n]*[./][^:\\n]*):`, which
    backtracks quadratically on a long line without ":" (issue 32: an 80 KB base64 line, 15 s)."""
    head, colon, _ = line.partition(":")
    if colon and "\n" not in head and ("." in head or "/" in head):
        return head
    return None


def _names_a_file(path) -> bool:
    last = (path or "").rstrip("/").rsplit("/", 1)[-1]
    return last.rfind(".") > 0


def _absolute_file(path: str) -> bool:
    """An absolute path naming a file: a context line's prefix even when no match line named it
    so (Claude Code's Grep prints context lines with absolute paths, match lines with relative
    ones: issue 41, H6); `within` names it as the match lines do."""
    return (path[:1] == "/" or path[1:3] in (":\\", ":/")) and _names_a_file(path)


def content_lines(text: str, one_file) -> tuple[list, bool]:
    """(path or None, line) of a content-mode result, and whether a line went to UNKNOWN."""
    out, seen, last, lost = [], set(), None, False
    for line in text.splitlines(keepends=True):
        if _OWN.match(line):
            out.append((None, line))
            continue
        if one_file and _BARE.match(line):
            path = one_file
        else:
            m = _NUMBERED.match(line)
            named = m.group(1) if m else _plain_path(line)
            c = _CONTEXT.match(line)
            if c and (c.group(1) in seen or _absolute_file(c.group(1))) and (named is None or len(c.group(1)) < len(named)):
                path = c.group(1)
            elif named is not None:
                path = named
            elif one_file:
                path = one_file
            else:
                path = last
        if path is None:
            path, lost = UNKNOWN, True
        seen.add(path)
        last = path
        out.append((path, line))
    return out, lost


def listed_lines(text: str) -> list:
    """(path or None, line) of a files-with-matches result: its summary lines are meta."""
    return [(None if _OWN.match(line) else path, line) for path, line in path_lines(text)]


def count_lines(text: str) -> list:
    out = []
    for line in text.splitlines(keepends=True):
        m = None if _OWN.match(line) else _COUNT.fullmatch(line)
        out.append((m.group(1) if m else None, line))
    return out


class GrepSource(ResultSource):
    name = "grep"

    @attrs.frozen
    class Options:
        tools: tuple[str, ...] = ("Grep",)

    def pieces(self, text, result):
        use = result.use
        mode = use.output_mode if use is not None else None
        if mode == "content":
            one_file = use.path if _names_a_file(use.path) else None
            pieces, lost = content_lines(text, one_file)
            return pieces, "a content line without a path: prefix" if lost else ""
        if mode == "count":
            return count_lines(text), ""
        return listed_lines(text), ""  # files_with_matches, the default


@hookimpl
def citeledger_register_sources(register):
    register(GrepSource)
