"""Envelope sources: what turns a tool call and its result into Sections.

A source is a plugin (entry-point group `citeledger`, hook
`citeledger_register_sources`), like a channel: a class with a `name`, a
frozen attrs `Options` class (its ruleset keys, under `sources:`), and

- `tools()`: the tools whose results the reader must keep for it (a
  `KeptTools`), or None when it reads explore responses only
  (`Transcript.responses`);
- optionally `explore_tool()`: the tool (a substring of its name) whose
  results the reader gives as explore responses, and a class attribute
  `default_explore_tool`, the one a reader keeps when no ruleset says: the
  explore source's own option, so no other module names that tool;
- optionally `moved`: the ruleset keys its options had before they were its
  own (old key -> option), which the loader refuses naming the new key;
- `cuts(given, ruleset, memo)`: one `Pulled` per tool result it charges,
  and the warnings it has about them.

A pulled cut has `sections(unit)` (its Sections, sized in the ruleset's
`unit`; what follows a last section is the source's own rule) and `number`
(a text key: equal numbers, equal sections; 0 shares with nothing). The
accountant numbers the calls and charges their sections exactly as it
charges explore sections; nothing here names a source. A source's options
are its ruleset keys: they feed the scoring stages of `Ruleset.sources`, so
a new one needs no edit in core. A source that cannot tell which file a result belongs to charges it
to `UNKNOWN` and warns (`unknown_warning`): it never drops the result.
"""

from __future__ import annotations

import posixpath
import re
from typing import Iterable, Optional

import attrs

from citeledger.core.reader import KeptTools, ReadOptions
from citeledger.core.sections import Section
from citeledger.core.sections.units import MEASURES
from citeledger.harness.context import DROPPED, tool_notice
from citeledger.core.transcript import InputWarning, Origin, ToolResult

# The file a result is charged to when its source cannot tell which it is.
UNKNOWN = "(unknown)"

# The tools that run a shell command (`ToolUse.command`): Claude Code's Bash, the shell
# tools of Codex rollouts and opencode's bash. The bash_read source reads these by default, and a declared
# retrieval command (the mcp source's `command`) is looked for in their calls.
SHELL_TOOLS = ("Bash", "shell", "shell_command", "exec_command", "local_shell", "container.exec", "bash")


@attrs.frozen
class Given:
    """What sources are given of one transcript, as a ruleset's reader reads it."""

    responses: tuple[ToolResult, ...]  # the explore tool's results (explore responses)
    results: tuple[ToolResult, ...]  # the kept results of other tools
    files: tuple[str, ...]  # the transcript's files, in reading order
    base: Optional[str] = None  # the session's working directory: returned paths are named from it (`within`)


@attrs.frozen
class Pulled:
    """One tool result a source charges: its cut, where it came from, the source's name."""

    cut: object  # .sections(unit) -> tuple[Section, ...]; .number -> int
    origin: Origin
    source: str
    response: int = -1  # its index in Given.responses when it is an explore response (its query's)
    result: Optional[tuple] = None  # result_key of the kept tool result it was cut from (None: an explore response)


def result_key(result: ToolResult) -> tuple:
    """Which tool result a cut is of, by value: where it stands, its call and its tool (two
    sources reading one result charge it once: `pull`)."""
    return (result.origin.file, result.origin.line, result.use.id if result.use is not None else None, result.name)


class Pieces:
    """A cut made of (path, text) pieces: each a Section sized in the unit asked for.

    A piece whose path is None is a meta section (a tool's own line, "Found 3
    files": charged to no file, counted in the envelope). Empty pieces are no
    section (nothing filled the window).
    """

    __slots__ = ("pieces", "number", "_sections")

    def __init__(self, pieces: Iterable[tuple[str, str]], number: int = 0):
        self.pieces = tuple((path, text) for path, text in pieces if text)
        self.number = number
        self._sections: dict = {}

    def sections(self, unit: str) -> tuple[Section, ...]:
        found = self._sections.get(unit)
        if found is None:
            measure = MEASURES[unit]
            found = self._sections[unit] = tuple(
                Section(path or "", None, measure(text), text, meta=path is None) for path, text in self.pieces
            )
        return found


def by_file(pieces: Iterable[tuple[Optional[str], str]]) -> list[tuple[Optional[str], str]]:
    """Pieces of one result gathered per file, in first-seen order: a file's lines
    make one section however they interleave (meta lines likewise)."""
    gathered: dict = {}
    for path, text in pieces:
        gathered.setdefault(path, []).append(text)
    return [(path, "".join(texts)) for path, texts in gathered.items()]


# Several files printed with nothing to tell where one ends (`sed -n 1,9p a; sed -n 1,9p b`):
# charged jointly, as FACTS.md writes it. A joint names no one file, so no answer cites it.
JOINT_OPEN, JOINT_SEPARATOR, JOINT_CLOSE = "JOINT[", " | ", "]"


def joint(paths) -> str:
    """The path a part of several files is charged to (one file: its own path)."""
    paths = list(dict.fromkeys(paths))
    return paths[0] if len(paths) == 1 else JOINT_OPEN + JOINT_SEPARATOR.join(paths) + JOINT_CLOSE


def joint_members(path) -> Optional[list]:
    """The files of a joint path, or None when it is one file's."""
    if isinstance(path, str) and path.startswith(JOINT_OPEN) and path.endswith(JOINT_CLOSE):
        return path[len(JOINT_OPEN):-len(JOINT_CLOSE)].split(JOINT_SEPARATOR)
    return None


def within(path, cwd: Optional[str], base: Optional[str] = None):
    """`path` as the session names it: resolved against `cwd` (the working directory in force
    when the call ran: a `cd` moves it), then made relative to `base` (the session's own
    working directory; `cwd` when not given) when it lies inside it, else absolute
    (issue 29 item 13; issue 41, H8). Windows drive paths (`c:\\Users\\...`, written with
    `/` once read) and `~/` (the home the working directory is under) are paths like any
    other. A path that cannot be resolved (relative, no working directory) is as it is."""
    if not (isinstance(path, str) and path) or path == UNKNOWN:
        return path
    members = joint_members(path)
    if members is not None:
        return joint(within(member, cwd, base) for member in members)
    cwd = _absolute(cwd, None) if cwd else None
    base = _absolute(base, None) if base else cwd
    found = _absolute(path, cwd)
    if found is None:
        return path
    if base:
        prefix = base.rstrip("/") + "/"
        if found.startswith(prefix) and len(found) > len(prefix):
            return found[len(prefix):]
    return found


_DRIVE = re.compile(r"([A-Za-z]):[\\/]")
_HOME = re.compile(r"(?:/Users/[^/]+|/home/[^/]+|/root|[a-z]:/Users/[^/]+)(?=/|$)")


def _windows(path: str):
    """A Windows drive path written with `/` and a lower-case drive, or None."""
    if _DRIVE.match(path) is None:
        return None
    return path[0].lower() + ":" + path[2:].replace("\\", "/")


def _absolute(path: str, cwd: Optional[str]) -> Optional[str]:
    """`path` made absolute and normal (no `.`, `..`, doubled `/`), or None when it cannot be."""
    drive = _windows(path)
    if drive is not None:
        return drive[:2] + posixpath.normpath(drive[2:])
    if path.startswith("/"):
        return posixpath.normpath(path) if "/." in path or "//" in path else path.rstrip("/") or "/"
    if path == "~" or path.startswith("~/"):
        home = _HOME.match(cwd or "")
        return None if home is None else posixpath.normpath(home.group(0) + path[1:])
    if not cwd:
        return None
    if cwd[1:2] == ":":
        return cwd[:2] + posixpath.normpath(posixpath.join(cwd[2:], path.replace("\\", "/")))
    return posixpath.normpath(posixpath.join(cwd, path))


def unknown_warning(source: str, result: ToolResult, why: str) -> InputWarning:
    """The warning of a result charged to UNKNOWN."""
    return InputWarning(
        result.origin.file, result.origin.line,
        f"{source}: {result.name} result charged to {UNKNOWN} ({why})",
    )


class ResultSource:
    """A base for a source reading the kept results of the tools its `tools` option names.

    A subclass gives `name`, `Options` (with `tools: tuple[str, ...]`) and
    `pieces(text, result) -> (pieces, why)`: (path or None for meta, text)
    pairs that add up to the result's text (its content items joined with
    nothing, as the reference joins an explore's), or (None, "") when the
    result is not this source's to charge; `why` says why a piece went to
    UNKNOWN ("" when none did). The built-in Read, Grep, Glob and Bash
    sources are written on it (docs/sources.md).
    """

    name = ""

    def __init__(self, options):
        self.options = options

    def tools(self) -> Optional[KeptTools]:
        return KeptTools(frozenset(self.options.tools))

    def wants(self, result: ToolResult) -> bool:
        return result.name in self.options.tools

    def pieces(self, text: str, result: ToolResult) -> tuple[list, str]:
        raise NotImplementedError

    def cuts(self, given, ruleset, memo: dict):
        join = "".join
        pulled, warnings = [], []
        for result in given.results:
            if not self.wants(result):
                continue
            text = join(result.blocks)
            pieces, why = self.pieces(text, result)
            if pieces is None:  # not this source's to charge (a bash command that reads nothing)
                continue
            notice = tool_notice(text)  # the tool's own words are no file's content (harness/context.py)
            if notice in DROPPED:
                continue
            if notice:
                pieces, why = [(None, text)], ""
            pieces = by_file([(within(path, result.cwd, given.base), part) for path, part in pieces])
            if why and any(path == UNKNOWN for path, _ in pieces):
                warnings.append(unknown_warning(self.name, result, why))
            pulled.append(Pulled(Pieces(pieces), result.origin, self.name, result=result_key(result)))
        return pulled, warnings


def make_sources(rules, known: dict) -> tuple:
    """The source objects of a ruleset's `sources` (SourceRule: name, options)."""
    return tuple(known[rule.name](rule.options) for rule in rules)


def kept_tools(sources) -> Optional[KeptTools]:
    """What the reader must keep for these source objects (None: explore responses only)."""
    kept = None
    for source in sources:
        tools = source.tools()
        if tools is not None:
            kept = tools if kept is None else kept | tools
    return kept


def explore_tool(sources) -> Optional[str]:
    """The tool whose results are explore responses: the first source's that names one
    (`explore_tool()`), None when no source of the ruleset reads them."""
    for source in sources:
        tool = getattr(source, "explore_tool", None)
        if tool is not None:
            return tool()
    return None


def installed_explore_tool() -> Optional[str]:
    """The explore tool when no ruleset says (a reader used as a library, `ReadOptions()`):
    the `default_explore_tool` of the first installed source, by name, that has one."""
    from citeledger.core.plugins import sources

    for _, cls in sorted(sources().items()):
        tool = getattr(cls, "default_explore_tool", None)
        if tool is not None:
            return tool
    return None


def read_options(max_line_bytes: int, sources) -> ReadOptions:
    """The reading options of a ruleset: its line limit, the explore tool its sources
    name and the other tools they read."""
    return ReadOptions(explore_tool=explore_tool(sources), max_line_bytes=max_line_bytes, keep=kept_tools(sources))


def tally(sources, calls, call_scores) -> tuple:
    """One SourceScore per source object, from the calls and their scores (same order)."""
    from citeledger.core.scores import SourceScore

    by_name: dict = {s.name: ([], [0, 0]) for s in sources}
    for call, scored in zip(calls, call_scores):
        numbers, sums = by_name[call.source]
        numbers.append(call.number)
        sums[0] += scored.envelope
        sums[1] += scored.used
    return tuple(SourceScore(name, tuple(n), env, used) for name, (n, (env, used)) in by_name.items())


def pull(given: Given, ruleset, sources, memo: dict) -> tuple[tuple[Pulled, ...], tuple[InputWarning, ...]]:
    """Every source's pulled cuts, in reading order, and their warnings.

    One source: its own order (each source pulls in reading order). Several:
    merged by where each result stands in the transcript (file, then line);
    a stable sort, so results of one line keep their source's order.
    """
    pulled: list[Pulled] = []
    warnings: list[InputWarning] = []
    claimed: dict = {}  # result_key -> the source that charges it (the first in `use:`)
    overlaps: dict = {}  # (later source, first source) -> the results both read
    for source in sources:
        cuts, said = source.cuts(given, ruleset, memo)
        for cut in cuts:
            first = claimed.setdefault(cut.result, source.name) if cut.result is not None else source.name
            if first == source.name:
                pulled.append(cut)
            else:
                overlaps.setdefault((source.name, first), []).append(cut)
        warnings.extend(said)
    for (later, first), cuts in overlaps.items():
        warnings.append(InputWarning(
            cuts[0].origin.file, cuts[0].origin.line,
            f"sources {first} and {later} both read {len(cuts)} tool result(s); each is charged once, by {first} "
            "(the first in sources.use)"))
    if len(sources) > 1:
        rank = {f: i for i, f in enumerate(given.files)}
        pulled.sort(key=lambda p: (rank.get(p.origin.file, len(rank)), p.origin.line))
    return tuple(pulled), tuple(warnings)
