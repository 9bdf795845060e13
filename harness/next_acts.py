"""What the agent did next after each call of every retrieval source (issue 42).

The explore sufficiency block (harness/sufficiency.py) asks it of explore calls only, in
the reference's words and bytes, and stays as it is. This asks it of every other source's
calls (an MCP server's search, Read, Grep, a shell read, a declared CLI), by the same
next-act rule (`NextActs`: the first act of a later message in the call's thread,
transparent tools skipped), and names the tool each time:

- `again`: the same tool called again (a shell call: when its command neither reads nor
  searches);
- `read_returned` / `read_missed`: a file read (Read, a read tool of any agent, a shell
  read) that this call returned, or did not;
- `search`: another retrieval call or a search (Grep, Glob, a shell search);
- `sufficient`: anything else, or the answer (`(final answer)`).
"""

from __future__ import annotations

import re
from typing import Optional

import attrs

from citeledger.harness.shell import same_file, shell_intent
from citeledger.harness.sufficiency import MAIN, READ_TOOLS, SEARCH_TOOLS, NextActs, actions_by_thread

NEXT_BUCKETS = BUCKETS = ("again", "read_returned", "read_missed", "search", "sufficient")
NEXT_LABELS = LABELS = {"again": "the same tool again", "read_returned": "read a file it returned",
          "read_missed": "read a file it did not return", "search": "another search",
          "sufficient": "moved on / answered"}
FINAL_ANSWER = "(final answer)"
_PREFIX = re.compile(r"^mcp__[^_]+(?:_[^_]+)*?__")
# Read tools of the agents citeledger reads (the input names the file: ToolUse.file_path).
_READS = READ_TOOLS | {"read_file", "read", "view"}


@attrs.frozen
class NextAct:
    call: int  # the score's call number
    source: str
    tool: str  # the tool called, as the agent named it (an MCP server's prefix dropped)
    bucket: str
    next: str  # the deciding act, named


@attrs.frozen
class RetrievalNext:
    calls: tuple[NextAct, ...]

    def counts(self, tool: Optional[str] = None) -> tuple[int, ...]:
        mine = [c for c in self.calls if tool is None or c.tool == tool]
        return tuple(sum(c.bucket == b for c in mine) for b in BUCKETS)

    def tools(self) -> list[str]:
        return list(dict.fromkeys(c.tool for c in self.calls))


def tool_name(name: str) -> str:
    """A tool's name as the agent's server gives it: `mcp__sourcegraph__keyword_search` is keyword_search."""
    return _PREFIX.sub("", name, count=1) or name


def next_acts(transcript, score) -> Optional[RetrievalNext]:
    """Every call of `score` made of a kept tool result (every source's but explore's, whose
    responses are the transcript's `responses`) with its next act, or None when it has none."""
    by_origin: dict = {}  # a record holding several calls and results (Gemini, opencode): each in turn
    for result in transcript.tool_results:
        if result.use is not None:
            by_origin.setdefault((result.origin.file, result.origin.line), []).append(result.use)
    calls_of = {number: source.name for source in score.sources for number in source.calls}
    threads = actions_by_thread(transcript)
    where = {act.key: (thread, index) for thread, acts in threads.items() for index, act in enumerate(acts)}
    following = {thread: NextActs(acts) for thread, acts in threads.items()}
    retrieval = {r.name for r in transcript.tool_results}
    found = []
    for call in score.calls:
        source = calls_of.get(call.number, "")
        uses = by_origin.get((call.origin_file, call.origin_line))
        use = uses.pop(0) if uses else None
        if use is None or use.key not in where:
            continue
        thread, index = where[use.key]
        deciding, _ = following[thread].of(index)
        returned = [path for path, _ in call.files]
        bucket, nxt = _judge(use.name, deciding, returned, retrieval)
        found.append(NextAct(call.number, source, tool_name(use.name), bucket, nxt))
    return RetrievalNext(tuple(found)) if found else None


def _judge(name: str, act, returned: list, retrieval: set) -> tuple[str, str]:
    if act is None:
        return "sufficient", FINAL_ANSWER
    nxt = tool_name(act.name)
    if act.name == name and not act.command:  # a shell call is judged by what its command does
        return "again", nxt
    path = act.file_path if act.name in _READS else ""
    if not path and nxt in _READS:  # an MCP read (Sourcegraph's read_file: repo and path)
        path = act.path
    if not path and act.command:
        intent = shell_intent(act.command, False, False)
        if intent.reads:
            path = intent.path
        elif intent.kind == "search":
            return "search", f"{nxt} search"
    if path:
        base = path.replace("\\", "/").rsplit("/", 1)[-1]
        hit = any(same_file(path, f) or same_file(path, f.split("/", 3)[-1]) for f in returned)
        return ("read_returned" if hit else "read_missed"), f"{nxt} {base}"
    if act.name == name:
        return "again", nxt
    if act.name in SEARCH_TOOLS or act.name in retrieval:
        return "search", nxt
    return "sufficient", nxt


__all__ = ["BUCKETS", "LABELS", "MAIN", "NEXT_BUCKETS", "NEXT_LABELS", "NextAct", "RetrievalNext", "next_acts",
           "tool_name"]
