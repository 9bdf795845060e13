"""Explore sufficiency: what the agent did next after each answered explore call.

The reference harness's companion to allocation (sufficiency.md): every
answered explore call (a call of the ruleset's explore tool) is put in one bucket by the agent's next act
in its own thread. "The agent's next act per thread" is `next_act` (one
implementation: the concurrent/transparent skipping and the delegation rule);
what a `Bash` command does is harness/shell.py's rule. Core computes; the block
and its JSON are report/sufficiency.py's.
"""

from __future__ import annotations

import bisect
import re
from typing import Hashable, Optional, Sequence

import attrs

from citeledger.core import is_explore
from citeledger.harness.shell import normal_path, same_file, shell_intent
from citeledger.infra.jsstr import utf16_len

MAIN = "main"  # the thread of events without parent_tool_use_id

# Worst to best: the block's order.
BUCKETS = ("explore_again", "read_returned", "read_missed", "search", "sufficient")
TRANSPARENT = frozenset(("ToolSearch", "TodoWrite"))
DELEGATIONS = frozenset(("Agent", "Task"))
READ_TOOLS = frozenset(("Read", "NotebookRead"))
SEARCH_TOOLS = frozenset(("Grep", "Glob"))
FINAL_ANSWER = "(final answer)"

# A returned file: a header at a JavaScript line start (after \n \r U+2028 U+2029).
_RETURNED = r"(?<![^\n\r\x{2028}\x{2029}])\*\*`([^`]+)`\*\*"
# A file named anywhere in the response (ASCII \w): the harness's own pattern, not a
# ruleset's, so no ruleset changes this metric.
_MENTIONED = r"(?:[\w@.+-]+/)+[\w@.+-]+\.[A-Za-z]\w*"
_SERVER_PREFIX = re.compile(r"^mcp__[^_]+__")
_compiled = None


def _patterns():
    """(_RETURNED, _MENTIONED) compiled on first use (RE2: linear in the response)."""
    global _compiled
    if _compiled is None:
        from citeledger.core import compile_linear

        _compiled = compile_linear(_RETURNED), compile_linear(_MENTIONED)
    return _compiled


@attrs.frozen
class Action:
    """One tool_use of an assistant event, as the judge reads it."""

    key: Hashable  # the tool_use id's key
    name: str
    message: Hashable  # message.id's key, or `#<thread>-<index>` when falsy
    query: str = ""
    file_path: str = ""
    command: str = ""
    path: str = ""  # the input's `path` (a search's folder; an MCP read_file's file): harness/next_acts.py


@attrs.frozen
class SufficiencyCall:
    """One answered explore call and the bucket its next act put it in."""

    thread: str
    query: str  # whole; the text block cuts it
    files: int  # returned files (headers)
    chars: int  # the response's length in UTF-16 units
    bucket: str
    next: str
    key: Hashable = None  # the explore's tool_use id as a key: what joins it to its allocation call


@attrs.frozen
class Sufficiency:
    counts: tuple[int, ...]  # per BUCKETS
    answered: int
    errors: int  # explore calls with no answer (errored or never returned)
    concurrent: int  # file accesses in the same message as an explore
    calls: tuple[SufficiencyCall, ...]

    def count(self, bucket: str) -> int:
        return self.counts[BUCKETS.index(bucket)]

    def counted(self) -> "Sufficiency":
        """The numbers without the per-call list: what a corpus pools (small to ship between processes)."""
        return attrs.evolve(self, calls=())


NONE = Sufficiency((0,) * len(BUCKETS), 0, 0, 0, ())


def pooled(sessions) -> Sufficiency:
    """Buckets pooled over every answered call of `sessions` (not averaged per session), as the
    harness pools an arm's runs (sufficiency.md, last bullet): counts, answered, errors and
    concurrent accesses summed; no per-call list."""
    total = NONE
    for s in sessions:
        total = Sufficiency(tuple(a + b for a, b in zip(total.counts, s.counts)), total.answered + s.answered,
                            total.errors + s.errors, total.concurrent + s.concurrent, ())
    return total


def actions_by_thread(transcript) -> dict[str, list[Action]]:
    """Every assistant tool_use as an Action, per thread, threads in first-appearance order."""
    threads: dict[str, list[Action]] = {}
    for thread in transcript.threads:
        threads.setdefault(MAIN if thread is None else thread, [])
    lost = set(transcript.bom_lines)  # the harness's JSON.parse refuses a BOM-led line: not read
    for use in transcript.tool_uses:
        if not use.assistant or (lost and use.origin in lost):
            continue
        thread = MAIN if use.thread is None else use.thread
        acts = threads.setdefault(thread, [])
        message = use.message if use.message is not None else f"#{thread}-{len(acts)}"
        acts.append(Action(use.key, use.name, message, use.query or "", use.file_path or use.notebook_path or "",
                           use.command or "", use.path or ""))
    return threads


def file_access(action: Action) -> bool:
    """Read, NotebookRead, Grep, Glob, or a Bash the shell rule calls a read or a search."""
    if action.name in READ_TOOLS or action.name in SEARCH_TOOLS:
        return True
    return action.name == "Bash" and shell_intent(action.command).kind is not None


def next_act(acts: Sequence[Action], index: int) -> tuple[Optional[Action], int]:
    """The action after acts[index] that decides, and the file accesses skipped as concurrent.

    Actions of the same message are no reaction to it (skipped, file accesses
    counted); transparent tools are skipped. None: nothing decides.
    """
    return NextActs(acts).of(index)


class NextActs:
    """next_act for every index of one thread in linear time (8,000 explore calls in one message
    rescanned the message per call): the deciding index by one backward pass, the concurrent
    accesses by bisecting each message's file-access positions."""

    def __init__(self, acts: Sequence[Action]):
        self.acts = acts
        self.deciding = _deciding(acts)
        self.accesses: dict[Hashable, list[int]] = {}
        for i, act in enumerate(acts):
            if file_access(act):
                self.accesses.setdefault(act.message, []).append(i)

    def of(self, index: int) -> tuple[Optional[Action], int]:
        end = self.deciding[index]
        positions = self.accesses.get(self.acts[index].message, ())
        stop = len(self.acts) if end is None else end
        concurrent = bisect.bisect_left(positions, stop) - bisect.bisect_right(positions, index)
        return (None if end is None else self.acts[end]), concurrent


def _deciding(acts: Sequence[Action]) -> list[Optional[int]]:
    """Per index i: the first later index, not transparent, of another message than acts[i]'s."""
    deciding: list[Optional[int]] = [None] * len(acts)
    following = None  # the first non-transparent index after i
    for i in range(len(acts) - 1, -1, -1):
        if following is not None:
            same = acts[following].message == acts[i].message
            deciding[i] = deciding[following] if same else following
        if acts[i].name not in TRANSPARENT:
            following = i
    return deciding


def delegated_act(threads: dict[str, list[Action]], delegation: Action) -> Optional[Action]:
    """The delegated thread's first act that is neither transparent nor a delegation."""
    if type(delegation.key) is not str:  # threads are strings: no other id names one
        return None
    for act in threads.get(delegation.key, ()):
        if act.name not in TRANSPARENT and act.name not in DELEGATIONS:
            return act
    return None


def judge(act: Action, returned: Sequence[str], mentioned: Sequence[str], earlier: "Returned",
          threads: dict[str, list[Action]]) -> tuple[str, str]:
    """(bucket, next) for the deciding act."""
    name = act.name
    if "codegraph" in name:
        return "explore_again", _SERVER_PREFIX.sub("", name, count=1)
    if name in READ_TOOLS:
        return _read(act.file_path, returned, mentioned, earlier)
    if name in SEARCH_TOOLS:
        return "search", name
    if name == "Bash":
        intent = shell_intent(act.command)
        if intent.reads:
            bucket, nxt = _read(intent.path, returned, mentioned, earlier)
            return bucket, "Bash " + nxt
        if intent.kind == "search":
            return "search", "Bash search"
    if name in DELEGATIONS:
        inner = delegated_act(threads, act)
        if inner is None:
            return "sufficient", name
        bucket, nxt = judge(inner, returned, mentioned, earlier, threads)
        return bucket, f"{name} → {nxt}"
    return "sufficient", name


def _read(path: str, returned: Sequence[str], mentioned: Sequence[str], earlier: "Returned") -> tuple[str, str]:
    base = normal_path(path).rsplit("/", 1)[-1] or path
    if any(same_file(path, f) for f in returned):
        return "read_returned", f"Read {base}"
    if earlier.has(path):
        return "read_returned", f"Read {base} (returned by an earlier explore)"
    named = any(same_file(path, m) for m in mentioned)
    return "read_missed", f"Read {base}" + (" (named, not returned)" if named else "")


class Returned:
    """The files earlier explores returned, indexed for shell.same_file: a trie of their
    `/`-separated parts, last part first. `same_file(a, b)` holds when one's parts end with the
    other's (equal, or `b` ends with "/" + `a`), so a read is looked up in the length of its path,
    not compared with every earlier file (4,000 explore-then-Read calls were quadratic)."""

    def __init__(self):
        self.root: dict = {}

    def extend(self, paths: Sequence[str]) -> None:
        for path in paths:
            if not path:
                continue
            node = self.root
            for part in reversed(normal_path(path).split("/")):
                node = node.setdefault(part, {})
            node[_END] = True

    def has(self, path: str) -> bool:
        """Is some earlier file the same file as `path` (same_file's rule)?"""
        if not path:
            return False
        node = self.root
        for part in reversed(normal_path(path).split("/")):
            node = node.get(part)
            if node is None:
                return False
            if _END in node:  # an earlier file's parts end `path`'s
                return True
        return True  # `path`'s parts end an earlier file's


_END = object()  # a trie key no path part equals


def sufficiency(transcript, tool: Optional[str]) -> Sufficiency:
    """The sufficiency of one session (sufficiency.md): its calls of the explore tool `tool`
    (a substring of the tool's name: the ruleset's explore source's option; None, no
    call is one), read as the transcript's explore answers (read with that tool)."""
    lost = set(transcript.bom_lines)  # lines the harness's JSON.parse refuses (a BOM-led one) are not read
    # A later answer replaces an earlier one.
    texts = {answer.key: answer.blocks for answer in transcript.explore_answers if not (lost and answer.origin in lost)}
    threads = actions_by_thread(transcript)
    counts = dict.fromkeys(BUCKETS, 0)
    errors = concurrent = 0
    calls = []
    for thread, acts in threads.items():
        earlier = Returned()
        following = NextActs(acts)
        for index, act in enumerate(acts):
            if not is_explore(act.name, tool):
                continue
            blocks = texts.get(act.key)
            if blocks is None:
                errors += 1
                continue
            text = "".join(blocks)
            returned_re, mentioned_re = _patterns()
            returned, mentioned = returned_re.findall(text), mentioned_re.findall(text)
            deciding, skipped = following.of(index)
            concurrent += skipped
            if deciding is None:
                bucket, nxt = "sufficient", FINAL_ANSWER
            else:
                bucket, nxt = judge(deciding, returned, mentioned, earlier, threads)
            earlier.extend(returned)
            counts[bucket] += 1
            calls.append(SufficiencyCall(thread, act.query, len(returned), utf16_len(text), bucket, nxt, act.key))
    return Sufficiency(tuple(counts[b] for b in BUCKETS), len(calls), errors, concurrent, tuple(calls))
