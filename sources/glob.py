"""The glob source: `Glob` results, a list of paths, one a line.

Each listed path is charged its own line (with its newline): a path list
costs the window what it lists, and each line names its file. The tool's
own lines ("No files found", "(Results are truncated. ...)") are meta:
counted in the envelope, charged to no file.
"""

from __future__ import annotations

import attrs

from citeledger.core import ResultSource, hookimpl

# A Glob line that is no path: the tool's own words.
NOT_A_PATH = ("No files found", "(")


def path_lines(text: str) -> list:
    """(path or None, line) of a path list: blank lines and the tool's own lines are meta."""
    out = []
    for line in text.splitlines(keepends=True):
        path = line.strip()
        out.append((None if not path or path.startswith(NOT_A_PATH) else path, line))
    return out


class GlobSource(ResultSource):
    name = "glob"

    @attrs.frozen
    class Options:
        tools: tuple[str, ...] = ("Glob",)

    def pieces(self, text, result):
        return path_lines(text), ""


@hookimpl
def citeledger_register_sources(register):
    register(GlobSource)
