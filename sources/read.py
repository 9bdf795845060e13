"""The read source: Claude Code's `Read` and `NotebookRead` results.

One section per result, for the file its tool input names (`file_path`,
`notebook_path`): the whole returned text is charged, the line-number
prefixes included (`     1→` or `     1\t`), since they filled the context
window as much as the code did. A result whose input names no file is
charged to (unknown), with a warning.
"""

from __future__ import annotations

import attrs

from citeledger.core import ResultSource, UNKNOWN, hookimpl


class ReadSource(ResultSource):
    name = "read"

    @attrs.frozen
    class Options:
        # Tool names whose results are file reads.
        tools: tuple[str, ...] = ("Read", "NotebookRead")

    def pieces(self, text, result):
        use = result.use
        path = use and (use.file_path or use.notebook_path)
        if not path:
            return [(UNKNOWN, text)], "its input names no file_path or notebook_path"
        return [(path, text)], ""


@hookimpl
def citeledger_register_sources(register):
    register(ReadSource)
