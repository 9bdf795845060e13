"""Parse a section header line: header.lark is the one definition of a header.

lark's LALR parser of header.lark reads a header's names, with the
Transformer applied during the parse (no tree is built). The splitter's
header pattern gives a header its path; the names in the rest of the line
are parsed only when something reads them (`Header.symbols`, `.more`,
`.tags`), once per Header: the splitter makes one Header per header line
per scoring call (`Cuts`), so no parse outlives the call that made it.

The grammar is built on first use (`_grammar`): start-up is spared lark's
import and build, and a run that never reads a header's names never builds it.

Most header lines are plain: names and counts, no render tag, no annotation.
Such a line is read by the grammar's own terminals (`_Terminals`: SYMBOL_ITEM,
MORE and the ones that rule a line out, their patterns as lark compiled them,
kept in the user's cache), so a run whose lines are all plain never imports
lark; every other line is lark's. No pattern here is written by hand:
tests/sources/test_header.py holds the two readings equal on every real header
line and on generated ones (docs/decisions.md, "Lark only when a line needs it").
"""

from __future__ import annotations

import marshal
import os
import re
from typing import Optional

from citeledger.core import Header, RenderTag, Symbol, __version__, bounded_int, cache


# What a SYMBOL_ITEM token may hold before the item: header.lark's leading
# class, none of them a name character.
_BEFORE_ITEM = " ,—"


def _symbol(token: str) -> Symbol:
    # A SYMBOL_ITEM token is `name(kind)` between OTHER characters: " ,—"
    # before, no ")" after; the name holds no "(".
    name, _, rest = token.partition("(")
    return Symbol(name.lstrip(_BEFORE_ITEM), rest[:rest.index(")")])


def _count(token: str) -> Optional[int]:
    """The count of a MORE token (`+N more`); None for a longer digit run (core/numbers.py)."""
    return bounded_int(token[1:token.index(" ")])


class _Part(list):
    """Items of one header part (the names, an annotation, a tag's parentheses):
    Symbols, counts, bare names (str) and the tags' parts, in order."""

    tag: str | None = None
    nested = False  # whether a tag's part is among the items


class _ToHeaderMethods:
    """Parse tree -> (symbols, more, tags) of a Header. Items keep their left-to-right order.

    The methods of the grammar's lark Transformer (made with lark, in `_Grammar`).
    """

    # A SYMBOL_ITEMS token -> the text of each of its SYMBOL_ITEMs, in order (set by _Grammar).
    items_of = None

    def items(self, children):
        # One reduce per item: `items: (items ITEM)?`, so children is [] or [part, item].
        if not children:
            return _Part()
        part, child = children
        kind = getattr(child, "type", None)  # a Token's terminal; a tag's _Part has none
        if kind == "SYMBOL_ITEMS":
            part.extend(_symbol(item) for item in self.items_of(child))
        elif kind == "WORD":
            part.append(str(child))
        elif kind == "MORE":
            count = _count(child)
            if count is not None:
                part.append(count)
        elif kind is None:
            part.append(child)
            part.nested = True
        return part

    def tag(self, children):
        part = children[1]
        part.tag = str(children[0])[:-1].strip()
        return part

    def annotation(self, children):
        return children[1]

    def header(self, children):
        return children[3]

    def line(self, children):
        names, annotations = children[0], children[1:]
        if not annotations and not names.nested:  # most headers: the names alone, no tag
            more = None
            for item in names:
                if item.__class__ is int:
                    more = item
            return tuple(item for item in names if item.__class__ is Symbol), more, ()
        symbols: list[Symbol] = []
        tags: list[str] = []
        more = None
        # Depth first, left to right, with a stack rather than recursion:
        # render tags may nest deeper than Python's recursion limit.
        stack = [iter(part) for part in reversed(annotations)] + [iter(names)]
        for item in names:
            if isinstance(item, int):
                more = item  # the last count directly in the names
        while stack:
            for item in stack[-1]:
                if isinstance(item, Symbol):
                    symbols.append(item)
                elif isinstance(item, _Part):
                    if item.tag:
                        tags.append(item.tag)
                    stack.append(iter(item))
                    break
            else:
                stack.pop()
        # A render tag lists its names bare, before the first "·".
        bare = tuple(item for item in names if isinstance(item, str))
        return tuple(symbols), more, tuple(RenderTag(t, bare) for t in tags)


class _Grammar:
    """header.lark built into lark's LALR parser, its Transformer applied during the parse."""

    def __init__(self):
        from lark import Lark, Token, Transformer, UnexpectedInput

        class ToHeader(_ToHeaderMethods, Transformer):
            pass

        self.Token, self.UnexpectedInput = Token, UnexpectedInput
        # Beside this module (a plain open: importing importlib.resources costs a one-run `score` more).
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "header.lark"), encoding="utf-8") as fh:
            grammar = fh.read()
        # transformer=: lark applies it during the LALR parse, so no tree is built
        # (`tokens`, which has no method, still comes back as a Tree).
        # Building the LALR tables is most of a one-run `score`'s scoring time: lark keeps
        # them in a file of the user's cache (infra/cache.py), named by the grammar's digest
        # and citeledger's version. lark trusts the file only when its first line holds the
        # digest of the grammar, options and lark version, and builds afresh (rewriting the
        # file) when it fails to load, so a torn or stale file costs a build, never a result.
        to_header = ToHeader()
        self.parser = Lark(grammar, start=["line", "header", "tokens"], parser="lalr", maybe_placeholders=False,
                           transformer=to_header, cache=cache.usable(cache.file_for("header-grammar", grammar, version=__version__)) or False)
        # A run of items is SYMBOL_ITEM's matches one after another: the terminal's own
        # pattern, searched along the run, gives each (lark's lexer runs it with re too).
        item = re.compile(self.parser.get_terminal("SYMBOL_ITEM").pattern.to_regexp())
        to_header.items_of = lambda run: [m.group() for m in item.finditer(run)]
        # A path the PATH terminal reads whole is followed by CLOSE and the
        # suffix: parsing the suffix from `line` is parsing the header.
        self.plain_path = re.compile(self.parser.get_terminal("PATH").pattern.to_regexp()).fullmatch


_BUILT: list = []


def _grammar() -> _Grammar:
    if not _BUILT:
        _BUILT.append(_Grammar())
    return _BUILT[0]


# The terminals a plain line is read by: the path's, the items' and the count's, and
# the ones whose presence leaves a line to lark (a tag, an annotation, a ")" of no item).
TERMINALS = ("PATH", "SYMBOL_ITEM", "MORE", "TAG_OPEN", "DOT", "RPAR")


class _Terminals:
    """header.lark's terminals as lark compiled them (`patterns`: name -> regexp), reading a plain line.

    A line whose suffix holds no TAG_OPEN and no DOT match, and whose every RPAR
    match lies inside a SYMBOL_ITEM match, lexes (header.lark's notes) into
    SYMBOL_ITEMS, MORE, WORD and OTHER tokens only, which `line` always accepts:
    its symbols are SYMBOL_ITEM's matches, its count the last MORE's, no tags.
    """

    def __init__(self, patterns: dict):
        compiled = {name: re.compile(patterns[name]) for name in TERMINALS}
        self.plain_path = compiled["PATH"].fullmatch
        self.item, self.more, self.rpar = compiled["SYMBOL_ITEM"], compiled["MORE"], compiled["RPAR"]
        self.tag_open, self.dot = compiled["TAG_OPEN"].search, compiled["DOT"].search

    def read(self, path: str, suffix: str):
        """(symbols, count, ()) of a plain line, as lark reads it; None: not plain, lark reads it."""
        if not self.plain_path(path) or self.dot(suffix) or self.tag_open(suffix):
            return None
        items = list(self.item.finditer(suffix))
        spans = iter(m.span() for m in items)
        start, end = next(spans, (0, 0))
        for paren in self.rpar.finditer(suffix):  # in order, as the items are
            while end <= paren.start() and (start, end) != (-1, -1):
                start, end = next(spans, (-1, -1))
            if not start <= paren.start() < end:
                return None  # a ")" of no item: RPAR where lark's parser may take it
        more = None
        for m in self.more.finditer(suffix):
            count = _count(m.group())
            if count is not None:
                more = count
        return tuple(_symbol(m.group()) for m in items), more, ()


_KEPT: list = []


def _terminals() -> _Terminals:
    """The plain-line reader: its patterns from the cache, else from the grammar built (and kept)."""
    if not _KEPT:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "header.lark"), encoding="utf-8") as fh:
            grammar = fh.read()
        # Named by the grammar and the installed packages, lark's own files among them.
        path = cache.file_for("header-terminals", grammar, _lark_stamp(), *cache.installed_state(), version=__version__)
        patterns = _kept_patterns(path)
        if patterns is None:
            parser = _grammar().parser
            patterns = {name: parser.get_terminal(name).pattern.to_regexp() for name in TERMINALS}
            cache.write(path, marshal.dumps(patterns))
        _KEPT.append(_Terminals(patterns))
    return _KEPT[0]


def _lark_stamp() -> str:
    """Where lark is installed and when its package was last written, found without importing it."""
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec("lark")
    try:
        return f"{spec.origin} {os.stat(spec.origin).st_mtime_ns}"
    except (AttributeError, TypeError, OSError):  # no lark found: the grammar is built, and says why
        return "-"


def _kept_patterns(path) -> Optional[dict]:
    """The kept terminal patterns at `path`, if the file loads whole and each one compiles."""
    data = cache.read(path)
    if data is None:
        return None
    try:
        patterns = marshal.loads(data)
        if sorted(patterns) != sorted(TERMINALS) or not all(isinstance(p, str) for p in patterns.values()):
            return None
        _Terminals(patterns)
    except Exception:  # any failure to load: not trusted, read from the grammar again
        return None
    return patterns


def read_names(path: str, suffix: str) -> tuple[tuple[Symbol, ...], Optional[int], tuple[RenderTag, ...]]:
    """(symbols, `+N more` count, render tags) of a header line as header.lark parses it; never raises.

    A plain line is read by the grammar's terminals, any other by its parser; a line
    the structured rules cannot parse is read for its symbols only.
    """
    plain = _terminals().read(path, suffix)
    return plain if plain is not None else parsed_names(path, suffix)


def parsed_names(path: str, suffix: str) -> tuple[tuple[Symbol, ...], Optional[int], tuple[RenderTag, ...]]:
    """`read_names` by lark's parser of header.lark, whatever the line."""
    g = _grammar()
    try:
        if g.plain_path(path):
            return g.parser.parse(suffix, start="line")
        return g.parser.parse(f"**`{path}`**{suffix}", start="header")
    except g.UnexpectedInput:  # unstructured: the symbols only
        tokens = g.parser.parse(suffix, start="tokens").scan_values(
            lambda t: isinstance(t, g.Token) and t.type == "SYMBOL_ITEM"
        )
        return tuple(map(_symbol, tokens)), None, ()


def names_of(path: str, suffix: str) -> tuple:
    """`read_names`, looked up when called: what a Header made here reads its names with."""
    return read_names(path, suffix)


def parse_header(path: str, suffix: str) -> Header:
    """The Header of a header line the splitter found (its path and the rest of
    the line); its names are parsed by `read_names` when first read."""
    return Header(path, suffix, names_of)
