"""Parse a section header line; header.lark is the one definition of a header.

Two ways to the same Header:

- `parse_with_grammar`: the lark LALR parser of header.lark, with the
  Transformer applied during the parse (no tree is built). The reference.
- `parse_header`: what a sweep calls. With the C kernel (core/kernel.py),
  one pass over the suffix that reads the grammar's terminals and tag
  brackets (`_native`). In pure Python, most headers hold no render tag, and
  for those the grammar's result is fixed by three regular expressions taken
  from its terminals (`_plain`); a header that may hold a render tag goes to
  the lean LALR run of the grammar's own tables (lalr.py).
  tests/test_header_fast.py and tests/test_kernel.py check each against the
  grammar on hostile and real headers.

Nothing is cached across calls: a header is parsed each time it is read.
The grammar itself is built on first use (`_grammar`): a sweep on the
kernel never needs it, and start-up is spared lark's import and build.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Optional

from citeledger.core.sections import KERNEL_RECORDS, Header, RenderTag, Symbol
from citeledger.core.kernel import native

_ITEM = re.compile(r"([A-Za-z_$][A-Za-z0-9_$.]*)\(([a-z_]+)\)")
_COUNT = re.compile(r"[0-9]+")


def _symbol(token: str) -> Symbol:
    name, kind = _ITEM.fullmatch(token).groups()
    return Symbol(name, kind)


class _Part(list):
    """Items of one header part (the names, an annotation, a tag's parentheses)."""

    tag: str | None = None


class _ToHeaderMethods:
    """Parse tree -> (symbols, more, tags) of a Header. Items keep their left-to-right order.

    The methods of the grammar's lark Transformer (made with lark, in `_Grammar`).
    """

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
        return tuple(symbols), more, tuple(RenderTag(t, bare) for t in tags)


class _Grammar:
    """header.lark built: lark's LALR parser, the lean run of its tables, and
    the terminals the pure fast path reads (read from the grammar, not copied)."""

    def __init__(self):
        from lark import Lark, Token, Transformer, UnexpectedInput

        from citeledger.core.sections import lalr

        class ToHeader(_ToHeaderMethods, Transformer):
            pass

        self.Token, self.UnexpectedInput, self.lalr = Token, UnexpectedInput, lalr
        grammar = resources.files(__package__).joinpath("header.lark").read_text("utf-8")
        # transformer=: lark applies it during the LALR parse, so no tree is built
        # (`tokens`, which has no method, still comes back as a Tree).
        self.parser = Lark(grammar, start=["header", "tokens"], parser="lalr", maybe_placeholders=False,
                           transformer=ToHeader())
        try:
            self.lean = lalr.LeanParser(self.parser, self.parser.options.transformer, "header")
        except lalr.Unsupported:  # a lark that builds its parser otherwise: lark's own parse
            self.lean = None
        terminals = {t.name: t.pattern for t in self.parser.terminals}
        # Where a TAG_OPEN token could begin: a header with no match anywhere has none.
        self.tag_open = re.compile(terminals["TAG_OPEN"].to_regexp())
        self.more = re.compile(terminals["MORE"].to_regexp())
        self.dot = terminals["DOT"].value


_BUILT: list = []


def _grammar() -> _Grammar:
    if not _BUILT:
        _BUILT.append(_Grammar())
    return _BUILT[0]


def parse_with_grammar(path: str, suffix: str) -> Header:
    """The header as header.lark parses it; never raises."""
    g = _grammar()
    try:
        symbols, more, tags = g.parser.parse(f"**`{path}`**{suffix}", start="header")
    except g.UnexpectedInput:  # unstructured: the symbols only
        tokens = g.parser.parse(suffix, start="tokens").scan_values(
            lambda t: isinstance(t, g.Token) and t.type == "SYMBOL_ITEM"
        )
        return Header(path, suffix, tuple(map(_symbol, tokens)))
    return Header(path, suffix, symbols, more=more, tags=tags)


def _plain(path: str, suffix: str) -> Optional[Header]:
    """The grammar's Header for a suffix in which no TAG_OPEN can begin; None otherwise.

    Why this is the grammar's result when no TAG_OPEN can be lexed:
    - the symbols are the SYMBOL_ITEM tokens, which the grammar is written to
      make exactly the matches of the item pattern, left to right;
    - a ")" outside those tokens, right after another token of a part, is
      lexed as RPAR (the LALR state after any piece's token is shared with
      a tag's contents, so lark's contextual lexer accepts RPAR there), which
      only a tag accepts: the parse fails, and the header is unstructured
      (symbols only, no count). Right after the path or a "·" it is OTHER;
    - otherwise `names` and `annotation` take any sequence of the remaining
      terminals: no tags; "·" outside a tag is always DOT, so
      `names` is the text before the first "·", and `more` its last MORE
      token (a "+" always starts a token, and MORE outranks OTHER there).
    """
    g = _grammar()
    if not path or "`" in path or " (" in suffix and g.tag_open.search(suffix) is not None:  # the grammar decides
        return None
    items = _ITEM.findall(suffix)
    symbols = tuple(Symbol(name, kind) for name, kind in items)
    if ")" in suffix and _stray_rpar(suffix, items, g.dot):
        return Header(path, suffix, symbols)
    names = suffix.split(g.dot, 1)[0] if "+" in suffix else ""
    more = None
    for m in g.more.finditer(names):
        more = m.group()
    return Header(path, suffix, symbols, more=None if more is None else int(_COUNT.search(more).group()))


def _native(path: str, suffix: str, memo: Optional[dict] = None) -> Header:
    """The header as the kernel's one-pass reading of the grammar gives it
    (_kernel.c header: header_parse's reading, the records made in C). `memo`
    maps an item's text to its Symbol: one per item of the scoring call."""
    if not path or "`" in path:
        return parse_with_grammar(path, suffix)
    return native.header(path, suffix, {} if memo is None else memo)


def _stray_rpar(suffix: str, items: list, dot: str) -> bool:
    """Whether a ")" outside every item token follows a token other than the path or "·"."""
    rest = _ITEM.sub("\0", suffix) if items else suffix  # an item stays one (non-"·") character
    at = rest.find(")")
    while at != -1:
        if at > 0 and rest[at - 1] != dot:
            return True
        at = rest.find(")", at + 1)
    return False


def _lean(path: str, suffix: str) -> Header:
    """The grammar's parse through lark's tables, run by the lean driver (lalr.py)."""
    g = _grammar()
    if g.lean is None or not path or "`" in path:
        return parse_with_grammar(path, suffix)
    try:
        symbols, more, tags = g.lean.parse(f"**`{path}`**{suffix}")
    except (g.lalr.Fail, g.lalr.Unsupported):  # unstructured: the grammar's symbols-only reading
        return parse_with_grammar(path, suffix)
    return Header(path, suffix, symbols, more=more, tags=tags)


def _pure(path: str, suffix: str, memo: Optional[dict] = None) -> Header:
    return _plain(path, suffix) or _lean(path, suffix)


def parse_header(path: str, suffix: str, symbols: Optional[dict] = None) -> Header:
    """Structure a header line the splitter found (path and suffix); never raises.

    Not cached here: the splitter's per-call `Cuts` memoises headers (and
    passes `symbols`, its (name, kind) -> Symbol table), so no parse
    outlives the scoring call that made it.
    """
    try:
        return _PARSE(path, suffix, symbols)
    except RecursionError:
        return _too_deep(path, suffix)


def _too_deep(path: str, suffix: str) -> Header:
    """Render tags nested past the recursion limit (thousands deep; the
    pure-Python parsers recurse, the kernel does not): an unstructured
    header, its symbols only (the item pattern's matches, as the grammar's)."""
    return Header(path, suffix, tuple(Symbol(name, kind) for name, kind in _ITEM.findall(suffix)))


_PARSE = _native if KERNEL_RECORDS else _pure
