"""The read_after channel: the agent opened the returned file after the explore.

"Uncited is not unused": a file the agent `Read` (its `file_path`), or
searched by path (`Grep`/`Glob` with a `path` naming it), in a later
assistant message of the same thread after the explore call that returned
it, was used even if the answer never names it. Evidence: the tool call
(tool, id, the path as the agent wrote it). Never in `default`: ranked after
path and symbol in `reactions`, so the ladder shows what "uncited but read"
adds to the reference's lower bound.

The rule, defined once here: a *read* is a tool use that names one file (a
`Read` by its `file_path`, a search by its `path`), matched to a returned
file by suffix (`returned_file`). Reads are placed against the explore calls
of their own thread (a subagent is a thread of its own:
`parent_tool_use_id`), by position in reading order (`call_positions`,
`reads_by_call`). The channel credits from this placement; the recall-miss
report (report/reads.py) gets the same placement through the channel's
`call_reads(envelope)`, so the list and the credit always agree.
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

import attrs

from citeledger.core import Call, Envelope, Finding, Origin, ToolResult, ToolUse, hookimpl, normal_path, shell_intent


@attrs.frozen
class Read:
    """A tool use naming one file (as the agent wrote it, usually absolute)."""

    tool: str
    id: str
    target: str
    thread: Optional[str]
    order: int
    origin: Origin
    search: bool  # a Grep/Glob `path`: may name a directory, not a file

    @property
    def evidence(self) -> str:
        return f"{self.tool} {self.id} {self.target}"


@attrs.frozen
class CallReads:
    """What the agent read in one explore call's thread after the call."""

    call: int  # Call.number
    thread: Optional[str]
    order: int  # the position of the call's tool_result
    # (path, first read naming it) for each file THIS call returned that a
    # later read of its thread named, in the order of the reads.
    returned: tuple[tuple[str, Read], ...]
    # Files read that no explore call of the session returned, each read
    # listed under the latest call of its thread before it (so once).
    misses: tuple[Read, ...]


def reads_of(tool_uses: Iterable[ToolUse], read_tools: Sequence[str], search_tools: Sequence[str],
             shell_tools: Sequence[str] = ()) -> tuple[Read, ...]:
    """Every tool use that names a file, in reading order: a shell command names
    the file harness.shell's bashIntent rule says it reads (Codex reads through the shell)."""
    out = []
    for use in tool_uses:
        if use.name in read_tools and use.file_path:
            out.append(Read(use.name, use.id, use.file_path, use.thread, use.order, use.origin, False))
        elif use.name in search_tools and use.path:
            out.append(Read(use.name, use.id, use.path, use.thread, use.order, use.origin, True))
        elif use.name in shell_tools and use.command:
            intent = shell_intent(use.command)
            if intent.reads:
                out.append(Read(use.name, use.id, intent.path, use.thread, use.order, use.origin, False))
    return tuple(out)


def returned_file(target: str, paths: Iterable[str]) -> Optional[str]:
    """The returned path `target` names: equal, or `target` ends with "/" + it.

    An absolute `/tmp/proj/express/lib/router/index.js` names the returned
    `lib/router/index.js`. When several returned paths fit (`app.py` and
    `src/flask/app.py`), the longest is the file: the other is only a suffix.
    """
    target = normal_path(target)
    best = None
    for path in paths:
        p = normal_path(path)
        if (target == p or target.endswith("/" + p)) and (best is None or len(p) > len(normal_path(best))):
            best = path
    return best


def names_a_file(read: Read) -> bool:
    """A Read always names a file; a search path only when its last segment has an extension."""
    if not read.search:
        return True
    last = normal_path(read.target).rstrip("/").rsplit("/", 1)[-1]
    return last.rfind(".") > 0


def call_positions(calls: Sequence[Call], responses: Sequence[ToolResult]) -> dict[int, tuple[Optional[str], int]]:
    """Call number -> (thread, position of its tool_result). A call's origin is its response's."""
    by_origin = {r.origin: r for r in responses}
    out = {}
    for call in calls:
        r = by_origin.get(call.origin)
        if r is not None:
            out[call.number] = (r.parent_tool_use_id, r.order)
    return out


def reads_by_call(calls: Sequence[Call], responses: Sequence[ToolResult], reads: Sequence[Read],
                  paths: Sequence[str]) -> tuple[CallReads, ...]:
    """For each call (that its response places), the reads of its thread after it.

    Reads before a thread's first call follow no call: they credit nothing
    and are no recall miss.
    """
    positions = call_positions(calls, responses)
    named = [(read, returned_file(read.target, paths)) for read in reads]
    by_thread: dict[Optional[str], list[tuple[int, int]]] = {}
    for number, (thread, order) in positions.items():
        by_thread.setdefault(thread, []).append((order, number))
    latest: dict[int, list[Read]] = {n: [] for n in positions}  # misses by the call they follow
    for read, path in named:
        if path is not None or not names_a_file(read):
            continue
        owner = None
        for order, number in sorted(by_thread.get(read.thread, ())):
            if order >= read.order:
                break
            owner = number
        if owner is not None:
            latest[owner].append(read)
    out = []
    for call in calls:
        if call.number not in positions:
            continue
        thread, order = positions[call.number]
        mine = set(s.path for s in call.sections if not s.meta)
        returned: dict[str, Read] = {}
        for read, path in named:
            if path in mine and read.thread == thread and read.order > order:
                returned.setdefault(path, read)
        out.append(CallReads(call.number, thread, order, tuple(returned.items()), tuple(latest[call.number])))
    return tuple(out)


@attrs.frozen
class ReadAfterOptions:
    # Tools whose input.file_path names a file the agent read.
    read_tools: tuple[str, ...]
    # Tools whose input.path names a file (or a directory) the agent searched.
    search_tools: tuple[str, ...]
    # Shell tools whose command reads a file (harness.shell's bashIntent rule); none unless named.
    shell_tools: tuple[str, ...] = ()


class ReadAfterChannel:
    name = "read_after"
    colour = "#17becf"  # on every page that draws its credits (report.palette)
    Options = ReadAfterOptions

    def __init__(self, options: ReadAfterOptions):
        self.options = options

    def call_reads(self, envelope: Envelope) -> tuple[CallReads, ...]:
        """What the agent read after each explore call of the envelope (the reads report's rows)."""
        reads = reads_of(envelope.tool_uses, self.options.read_tools, self.options.search_tools, self.options.shell_tools)
        return reads_by_call(envelope.calls, envelope.responses, reads, envelope.paths)

    def judge(self, answer: str, envelope: Envelope) -> dict[str, Finding]:
        # The answer plays no part: the evidence is what the agent did.
        first: dict[str, tuple] = {}  # path -> (order of the read, read, call number)
        for placed in self.call_reads(envelope):
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
