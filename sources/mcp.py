"""The mcp source: any retrieval tool, declared in YAML by the calls it takes and how its
output names files.

A declaration names the calls (`tool`, a pattern searched in an MCP or other
tool's name; or `command`, a pattern searched in a shell call's command line),
how a result is decoded first (`decode: json-text`: a JSON object's "text",
as Sourcegraph's MCP server returns it) and how it is cut: a shipped `shape`
(sources/sectioned/shapes.py: `repo-sections`, `blob-url`, `path-line`,
`path-wrapper`), or an own `header` pattern (group 1 the path, group 2 the
rest of the line; or named groups `path`, `repo`, `rest`), up to `trailer`.
The result is cut exactly as an explore response is (sources/sectioned/, the
explore source's splitter), and the rest of each header line is read by its
lark grammar (header.lark), so names in `name(kind)` form reach the symbol
channel. `empty` says what a result that found nothing looks like (no
retrieval, as a failed call is none); `listing: true` that the tool lists
rather than returns content (in the envelope, charged to no file);
`preamble` and `no_header` what text before the first header, and a result
with none, are (`meta`: charged to no file; else not counted / charged to
(unknown) with a warning: never dropped).

The source's own keys are one declaration (named `mcp`, the form before
declarations had names); `tools:` holds named ones, a mapping, so a ruleset
that extends another adds its server beside the shipped ones. A tool the
reader takes for an explore call (the explore source's `tool`) is that
source's, never this one's. See docs/sources.md and docs/your-tool.md.
"""

from __future__ import annotations

import json
import re
from typing import Optional

import attrs

from citeledger.core import (
    DROPPED, SHELL_TOOLS, KeptTools, Pieces, Pulled, UNKNOWN, compile_linear, hookimpl, result_key, tool_notice,
    unknown_warning, within,
)
from citeledger.sources.sectioned import Fixed, shared_cuts
from citeledger.sources.sectioned.shapes import SHAPES, joined
from citeledger.sources.sectioned.splitter import WithPreamble, header_roles


def _one_of(*choices):
    return attrs.validators.in_(choices)


@attrs.frozen
class Declared:
    """One retrieval tool: the calls it takes and how its output names files."""

    # Searched in the tool's name, e.g. '^mcp__sourcegraph__read_file$'.
    tool: Optional[re.Pattern] = None
    # Searched in a shell call's command line (Bash, Codex's shells), e.g. '\bsgx\s+(search|read)\b'.
    command: Optional[re.Pattern] = None
    # How a result is read first: as it is ("none"), or a JSON object's "text" ("json-text").
    decode: str = attrs.field(default="none", validator=_one_of("none", "json-text"))
    # Shipped shapes, by name (sources/sectioned/shapes.py); several are one pattern.
    shape: tuple[str, ...] = ()
    # An own section header: group 1 the path, group 2 the rest; or named groups path, repo, rest.
    header: Optional[re.Pattern] = None
    # Lines that end a file's section and name no file (a query banner, a separator a script
    # printed): what follows them, up to the next header, is charged to no file.
    breaks: Optional[re.Pattern] = None
    # The last section ends at the first occurrence of this after its header ("": the end).
    trailer: str = ""
    # What follows the last section's closing code fence: the last file's, or meta.
    trailing_block: str = attrs.field(default="last-file", validator=_one_of("last-file", "meta"))
    # Joined between a result's content items (as the explore source's option).
    block_separator: str = ""
    # A result this finds (searched in the decoded text) found nothing: no retrieval.
    empty: Optional[re.Pattern] = None
    # A listing (files, repositories), not content: the whole result charged to no file.
    listing: bool = False
    # Text before the first header: not counted ("skip", as in an explore response) or "meta".
    preamble: str = attrs.field(default="skip", validator=_one_of("skip", "meta"))
    # A result without any header: charged to (unknown) with a warning, or "meta".
    no_header: str = attrs.field(default="unknown", validator=_one_of("unknown", "meta"))
    # For a shell call whose output has no header: a pattern over its command line naming the
    # file it reads (named groups `path` and `repo`); when every match names one file, the
    # output is that file's (a read filtered by grep in a loop prints no header).
    command_file: Optional[re.Pattern] = None

    def __attrs_post_init__(self):
        if self.tool is None and self.command is None:
            raise ValueError("tool: missing (or command): which calls it takes")
        check_cut(self)


def check_cut(declared) -> None:
    """A declaration that can cut: a listing, or shapes that exist and a header naming its path."""
    unknown = [s for s in declared.shape if s not in SHAPES]
    if unknown:
        raise ValueError(f"shape: no shape {unknown[0]!r} (shipped: {', '.join(SHAPES)})")
    if declared.command_file is not None and "path" not in declared.command_file.groupindex:
        raise ValueError("command_file: needs a named group `path` (and `repo`, if the command names it)")
    if declared.breaks is not None and declared.header is not None and header_roles(declared.header) is None:
        raise ValueError("header: name its groups (`path`, `rest`) beside breaks")
    header = declared.header
    if header is not None:
        named = header_roles(header) is not None
        if not named and (declared.shape or header.groups < 2):
            raise ValueError("header: needs groups 1 (the path) and 2 (the rest), or a named group `path`"
                             + (" (beside a shape)" if declared.shape else ""))
    elif not declared.shape and not declared.listing:
        raise ValueError("header: missing (or shape, or listing: true): how its output names files")


def _named_tools(value) -> tuple:
    return tuple(value.items()) if isinstance(value, dict) else tuple(value)


@attrs.frozen
class McpOptions(Declared):
    """The source's keys: one declaration of its own (`tool` or `command` given) and `tools`."""

    # Named declarations, a mapping (a ruleset that extends another adds to it).
    tools: dict[str, Declared] = attrs.field(factory=tuple, converter=_named_tools)

    def __attrs_post_init__(self):
        if self.tool is not None or self.command is not None:
            check_cut(self)
        elif self.header is not None or self.shape:
            raise ValueError("tool: missing (or command): which calls the header is for")
        elif not self.tools:
            raise ValueError("tool: missing (or tools: named declarations)")


@attrs.frozen
class CutRules:
    """What the splitter reads of a declaration: its joined header pattern, trailer, trailing block."""

    header: object
    trailer: str
    trailing_block: str


class McpSource:
    name = "mcp"
    Options = McpOptions

    def __init__(self, options):
        self.options = options
        own = ((self.name, options),) if options.tool is not None or options.command is not None else ()
        self.declared = tuple((name, d, _rules(d)) for name, d in own + options.tools)

    def tools(self):
        names = frozenset(SHELL_TOOLS) if any(d.command is not None for _, d, _ in self.declared) else frozenset()
        return KeptTools(names, tuple(d.tool for _, d, _ in self.declared if d.tool is not None))

    def cuts(self, given, ruleset, memo: dict):
        cuts = shared_cuts(memo)
        pulled, warnings = [], []
        for result in given.results:
            declared = next(((d, r) for _, d, r in self.declared if takes(d, result)), None)
            if declared is None:
                continue
            cut, why = _cut(result, *declared, cuts)
            if cut is not None and (result.cwd or given.base):
                cut = Named(cut, result.cwd, given.base)
            if why:
                warnings.append(unknown_warning(self.name, result, why))
            if cut is not None:
                pulled.append(Pulled(cut, result.origin, self.name, result=result_key(result)))
        return pulled, warnings


class Named:
    """A cut whose sections' paths are named as the session names them (`within`: an absolute
    `/p/src/a.ts` from the session's directory `/p` is `src/a.ts`, as every source names it).
    Numbered 0: the same text under another working directory names other paths."""

    __slots__ = ("cut", "cwd", "base", "number")

    def __init__(self, cut, cwd, base):
        self.cut, self.cwd, self.base, self.number = cut, cwd, base, 0

    def sections(self, unit: str):
        return tuple(attrs.evolve(s, path=within(s.path, self.cwd, self.base)) if s.path and not s.meta else s
                     for s in self.cut.sections(unit))


def _rules(declared: Declared) -> Optional[CutRules]:
    if declared.listing and declared.header is None and not declared.shape:
        return None
    own = declared.header.pattern if declared.header is not None else ""
    breaks = declared.breaks.pattern if declared.breaks is not None else ""
    return CutRules(compile_linear(joined(declared.shape, own, breaks)), declared.trailer, declared.trailing_block)


def takes(declared: Declared, result) -> bool:
    """Whether the declaration takes this kept tool result: by its tool's name, or by the
    command line of a shell call."""
    if declared.tool is not None and declared.tool.search(result.name):
        return True
    command = result.use.command if result.use is not None else None
    return (declared.command is not None and command is not None and result.name in SHELL_TOOLS
            and declared.command.search(command) is not None)


def decoded(declared: Declared, result) -> str:
    """A result's text as the declaration reads it: its content items joined, then decoded."""
    text = declared.block_separator.join(result.blocks)
    if declared.decode == "json-text" and text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict) and isinstance(value.get("text"), str):
            return value["text"]
    return text


def _cut(result, declared: Declared, rules: Optional[CutRules], cuts) -> tuple:
    """(the cut to charge or None, why a piece went to UNKNOWN or "")."""
    text = decoded(declared, result)
    if not text or declared.empty is not None and declared.empty.search(text):
        return None, ""  # found nothing: no retrieval
    notice = tool_notice(text)  # the host's own words ("(Bash completed with no output)"): no file's
    if notice:
        return (None, "") if notice in DROPPED else (Pieces([(None, text)]), "")
    if rules is None or declared.listing:
        return Pieces([(None, text)]), ""
    cut = cuts.cut(text, rules)
    if cut.pieces(rules.trailing_block):
        fixed = Fixed(cut, rules.trailing_block)
        return (WithPreamble(fixed, cut.preamble) if declared.preamble == "meta" and cut.preamble else fixed), ""
    named = command_file(declared, result)
    if named is not None:
        return Pieces([(named, text)]), ""
    if declared.no_header == "meta":
        return Pieces([(None, text)]), ""
    return Pieces([(UNKNOWN, text)]), "no header line found"


def command_file(declared: Declared, result) -> Optional[str]:
    """The one file the call's command line names by `command_file` (`repo/path`), else None."""
    command = result.use.command if result.use is not None else None
    if declared.command_file is None or command is None:
        return None
    names = set()
    for m in declared.command_file.finditer(command):
        path, repo = m.group("path"), m.group("repo") if "repo" in declared.command_file.groupindex else None
        names.add(f"{repo.rstrip('/')}/{path}" if repo else path)
    return names.pop() if len(names) == 1 else None


@hookimpl
def citeledger_register_sources(register):
    register(McpSource)
