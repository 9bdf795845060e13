"""The read_after channel: the agent opened the returned file after the explore.

"Uncited is not unused": a file the agent `Read` (its `file_path`), or
searched by path (`Grep`/`Glob` with a `path` naming it), in a later
assistant message of the same thread after the explore call that returned
it, was used even if the answer never names it. Evidence: the tool call
(tool, id, the path as the agent wrote it). Matching an absolute path to a
returned relative one is by suffix (core.reads.returned_file). Never in
`default`: ranked after path and symbol in `reactions`, so the ladder shows
what "uncited but read" adds to the reference's lower bound.
"""

from __future__ import annotations

import attrs

from citeledger.core import Envelope, Finding, hookimpl, reads_by_call, reads_of


@attrs.frozen
class ReadAfterOptions:
    # Tools whose input.file_path names a file the agent read.
    read_tools: tuple[str, ...]
    # Tools whose input.path names a file (or a directory) the agent searched.
    search_tools: tuple[str, ...]


class ReadAfterChannel:
    name = "read_after"
    Options = ReadAfterOptions

    def __init__(self, options: ReadAfterOptions):
        self.options = options

    def judge(self, answer: str, envelope: Envelope) -> dict[str, Finding]:
        # The answer plays no part: the evidence is what the agent did.
        reads = reads_of(envelope.tool_uses, self.options.read_tools, self.options.search_tools)
        first: dict[str, tuple] = {}  # path -> (order of the read, read, call number)
        for placed in reads_by_call(envelope.calls, envelope.responses, reads, envelope.paths):
            for path, read in placed.returned:
                if path not in first or read.order < first[path][0]:
                    first[path] = (read.order, read, placed.call)
        findings = {}
        for path in envelope.paths:
            if path in first:
                _, read, call = first[path]
                findings[path] = Finding(self.name, True, read.evidence,
                                         f"{read.tool} {read.id} `{read.target}` after call {call} returned it")
            else:
                findings[path] = Finding(self.name, False, None, "not read after an explore call returned it")
        return findings


@hookimpl
def citeledger_register_channels(register):
    register(ReadAfterChannel)
