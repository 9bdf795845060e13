"""Parse a section header line: header.lark is the one definition of a header.

lark's LALR parser of header.lark reads a header's names, with the
Transformer applied during the parse (no tree is built). The splitter's
header pattern gives a header its path; the names in the rest of the line
are parsed only when something reads them (`Header.symbols`, `.more`,
`.tags`), once per Header: the splitter makes one Header per header line
per scoring call (`Cuts`), so no parse outlives the call that made it.

The grammar is built on first use (`_grammar`): start-up is spared lark's
import and build, and a run that never reads a header's names never builds it.
"""

from __future__ import annotations

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
            digits = child[1:child.index(" ")]  # `+N more`
            count = bounded_int(digits)  # a longer digit run is no count (core/numbers.py)
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


def read_names(path: str, suffix: str) -> tuple[tuple[Symbol, ...], Optional[int], tuple[RenderTag, ...]]:
    """(symbols, `+N more` count, render tags) of a header line as header.lark parses it; never raises.

    A line the structured rules cannot parse is read for its symbols only.
    """
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
