"""Parse a section header line with the lark grammar in header.lark."""

from __future__ import annotations

import re
from importlib import resources

from lark import Lark, Token, Transformer, UnexpectedInput

from citeledger.core.sections import Header, RenderTag, Symbol

_GRAMMAR = resources.files(__package__).joinpath("header.lark").read_text("utf-8")
_PARSER = Lark(_GRAMMAR, start=["header", "tokens"], parser="lalr", maybe_placeholders=False)
_ITEM = re.compile(r"([A-Za-z_$][A-Za-z0-9_$.]*)\(([a-z_]+)\)")
_COUNT = re.compile(r"[0-9]+")


def _symbol(token: str) -> Symbol:
    name, kind = _ITEM.fullmatch(token).groups()
    return Symbol(name, kind)


class _Part(list):
    """Items of one header part (the names, an annotation, a tag's parentheses)."""

    tag: str | None = None


class _ToHeader(Transformer):
    """Parse tree -> Header. Items keep their left-to-right order."""

    def symbol(self, children):
        return _symbol(children[0])

    def more(self, children):
        return int(_COUNT.search(children[0]).group())

    def text(self, children):
        token = children[0]
        return str(token) if token.type == "WORD" else None

    def tag(self, children):
        part = _Part(children[1:-1])
        part.tag = str(children[0])[:-1].strip()
        return part

    def names(self, children):
        return _Part(children)

    def annotation(self, children):
        return _Part(children[1:])

    def header(self, children):
        path, names, annotations = str(children[1]), children[3], children[4:]
        symbols: list[Symbol] = []
        tags: list[str] = []
        more = None

        def walk(part):
            nonlocal more
            for item in part:
                if isinstance(item, Symbol):
                    symbols.append(item)
                elif isinstance(item, _Part):
                    if item.tag:
                        tags.append(item.tag)
                    walk(item)
                elif isinstance(item, int) and part is names:
                    more = item

        walk(names)
        for part in annotations:
            walk(part)
        # A render tag lists its names bare, before the first "·".
        bare = tuple(item for item in names if isinstance(item, str))
        return Header(path, "", tuple(symbols), more=more, tags=tuple(RenderTag(t, bare) for t in tags))


_TO_HEADER = _ToHeader()


def parse_header(path: str, suffix: str) -> Header:
    """Structure a header line the splitter found (path and suffix); never raises.

    Not cached here: the splitter's per-call `Cuts` memoises headers, so no
    parse outlives the scoring call that made it.
    """
    try:
        tree = _PARSER.parse(f"**`{path}`**{suffix}", start="header")
    except UnexpectedInput:
        tokens = _PARSER.parse(suffix, start="tokens").scan_values(
            lambda t: isinstance(t, Token) and t.type == "SYMBOL_ITEM"
        )
        return Header(path, suffix, tuple(map(_symbol, tokens)))
    parsed = _TO_HEADER.transform(tree)
    return Header(path, suffix, parsed.symbols, more=parsed.more, tags=parsed.tags)
