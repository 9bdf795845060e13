"""An interactive session's tool tallies and token sums, as codegraph's
`parse-session.mjs` counts them (docs/harness.md "An interactive session").

Every tool_use block of every event is tallied by name, the session's own
log apart from its subagents' files (a line JSON.parse refuses, one led by a
byte order mark, is left out); tokens are every logged usage summed over
every file (the run log's `LoggedTokens`). The VERDICT line's figures are the
script's own: its explore count is the subagents' count of the one tool name
it knows (the explore tool as Claude Code names codegraph's MCP server's), or
else the main thread's (not their sum), and its "Grep/Bash" is Grep and Bash
calls (not Glob).
"""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.infra.jsonl import js_key_order

# parse-session.mjs's VERDICT line counts one tool name: the explore tool as Claude Code
# names an MCP tool of codegraph's server (`mcp__<server>__<tool>`).
VERDICT_SERVER = "mcp__codegraph__"


@attrs.frozen
class SessionTally:
    """`main` and `subagents`: calls per tool name, in the script's printed order (most
    first; ties in JavaScript's object key order); `tokens` None when not logged."""

    session_id: str
    explore_name: Optional[str]  # the one name the VERDICT line counts (None: the ruleset reads no explore tool)
    main: tuple[tuple[str, int], ...]
    subagents: tuple[tuple[str, int], ...]
    subagent_files: int
    tokens: Optional[object]  # core.LoggedTokens

    def count(self, thread: str, name: str) -> int:
        return dict(getattr(self, thread)).get(name, 0)

    @property
    def explore(self) -> int:
        name = self.explore_name
        return 0 if name is None else self.count("subagents", name) or self.count("main", name)

    @property
    def reads(self) -> int:
        return self.count("subagents", "Read") + self.count("main", "Read")

    @property
    def greps(self) -> int:
        return sum(self.count(thread, name) for thread in ("subagents", "main") for name in ("Grep", "Bash"))


def session_id(log: str) -> str:
    """The session's id: its log's file name, the first ".jsonl" taken out (as `replace` does)."""
    return log.replace("\\", "/").rsplit("/", 1)[-1].replace(".jsonl", "", 1)


def printed_order(counts: dict) -> tuple[tuple[str, int], ...]:
    """Object.entries(counts) sorted by count, most first (a stable sort)."""
    keys = js_key_order(counts)
    return tuple(sorted(((k, counts[k]) for k in keys), key=lambda kv: -kv[1]))


def session_tally(transcript, tool: Optional[str]) -> SessionTally:
    """The tallies of an interactive session read by the claude-interactive reader
    (`files[0]` the session's log, the rest its subagents' files); `tool` is the explore
    tool (the ruleset's explore source's option)."""
    log = transcript.files[0]
    skipped = set(transcript.bom_lines)
    main: dict = {}
    subagents: dict = {}
    for use in transcript.tool_uses:
        if skipped and use.origin in skipped:
            continue
        counts = main if use.origin.file == log else subagents
        counts[use.name] = counts.get(use.name, 0) + 1
    run_log = transcript.run_log
    return SessionTally(
        session_id=session_id(log), explore_name=None if tool is None else VERDICT_SERVER + tool,
        main=printed_order(main), subagents=printed_order(subagents),
        subagent_files=len(transcript.files) - 1,
        tokens=None if run_log is None else run_log.logged_tokens)
