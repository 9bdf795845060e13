"""Split an explore response into sections, one per file header.

The explore source and the `mcp` source (sources/mcp.py) cut with this
machinery, each under its own options: the header pattern, the trailer and
the trailing-block rule.
"""

from __future__ import annotations

from citeledger.core import BoundedMemo, Header, Section, sized
from citeledger.sources.sectioned.header import names_of


def _pieces(text: str, header_re, trailer: str, headers: dict) -> tuple[tuple, int, str]:
    """((path, Header, piece, False, piece's UTF-8 length or -1) of each section, the last
    header's length, the text before the first header): from each header match to the next,
    the last to the trailer or the end.

    When the pattern hands back the text's UTF-8 bytes, each piece, path and
    suffix is sliced from them and decoded (a C loop, which gives the piece's
    length in code points with it); else sliced from the text by code points.
    An equal header line is one Header (`headers`, the Cuts'); its names wait
    until read.
    """
    data, heads = header_re.byte_matches(text)
    if not heads:
        return (), 0, text
    if data is None:
        data, decode, utf8 = text, str, False
    else:
        decode, utf8 = bytes.decode, True  # UTF-8, strict: the bytes are the text's encoding
        try:
            trailer = trailer.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, which the text cannot hold
            trailer = ""
    roles = header_roles(header_re)
    starts = [head[0][0] for head in heads]
    found = data.find(trailer, starts[-1]) if trailer else -1
    ends = starts[1:]
    ends.append(len(data) if found == -1 else found)
    pieces = []
    for head, start, end in zip(heads, starts, ends):
        if roles is None:
            (a, b), (c, d) = head[1], head[2]
            path = None if a == -1 else decode(data[a:b])
            suffix = None if c == -1 else decode(data[c:d])
        else:
            path, suffix = _named(head, roles, data, decode)
        header = headers.get((path, suffix))
        if header is None:
            header = Header(path, suffix, names_of)
            headers.put((path, suffix), header)
        if path is None and roles is not None:  # a break (no path group took part): charged to no file
            pieces.append(("", None, decode(data[start:end]), True, -1))
            continue
        pieces.append((path, header, decode(data[start:end]), False, end - start if utf8 else -1))
    start, end = heads[-1][0]
    return tuple(pieces), len(decode(data[start:end])), decode(data[:starts[0]])


# The named groups a header pattern may give instead of groups 1 and 2: the path, the
# repository it lies in (the path is then `repo/path`) and the rest of the line. A name
# may carry a suffix (`path_2`), so alternatives (shapes joined by `|`) each name their own.
ROLES = ("path", "repo", "rest")


def header_roles(header_re) -> "tuple | None":
    """Per alternative, the group numbers of (path, repo, rest) (None where it names none), or
    None when the pattern names no `path` group (then group 1 is the path, group 2 the rest)."""
    found: dict = {}
    for name, number in header_re.groupindex.items():
        role, _, tag = name.partition("_")
        if role in ROLES:
            found.setdefault(tag, {})[role] = number
    alternatives = tuple((g["path"], g.get("repo"), g.get("rest")) for _, g in sorted(found.items()) if "path" in g)
    return alternatives or None


def _named(head, roles, data, decode) -> tuple:
    """(path, suffix) of one header match by its named groups: the first alternative whose
    path group took part; the path prefixed by its repository when that group took part."""
    for path_group, repo_group, rest_group in roles:
        a, b = head[path_group]
        if a == -1:
            continue
        path = decode(data[a:b])
        if repo_group is not None and head[repo_group][0] != -1:
            c, d = head[repo_group]
            path = decode(data[c:d]).rstrip("/") + "/" + path.lstrip("/")
        suffix = ""  # no rest of the line: a header that lists no names
        if rest_group is not None and head[rest_group][0] != -1:
            c, d = head[rest_group]
            suffix = decode(data[c:d])
        return path, suffix
    return None, ""  # an alternative with no path group: a break


def split_sections(text: str, rules, unit: str, cuts: "Cuts | None" = None) -> tuple[Section, ...]:
    """Sections of one response text under a source's `header`, `trailer` and
    `trailing_block` options (`rules`), sized in `unit`.

    A section runs from its header line to the next header; the last one ends
    at the trailer marker (the guidance quote) or the end of the text. With
    `trailing_block: meta`, whatever follows the last section's closing code
    fence is split off as a meta section charged to no file. `cuts` lets the
    rulesets scoring one transcript reuse each other's regex work.
    """
    return (cuts or Cuts()).cut(text, rules).sections(rules.trailing_block, unit)


class Fixed:
    """A cut under one source's trailing-block rule: what the source hands the accountant
    (`sections(unit)`, `number`; core/source.py's Pulled cut)."""

    __slots__ = ("cut", "number", "trailing_block")

    def __init__(self, cut: "_Cut", trailing_block: str):
        self.cut, self.number, self.trailing_block = cut, cut.number, trailing_block

    def sections(self, unit: str) -> tuple[Section, ...]:
        return self.cut.sections(self.trailing_block, unit)


class WithPreamble:
    """A cut whose text before the first header is counted, charged to no file (a meta section
    first): the mcp source's `preamble: meta`. Numbered 0 (it shares its sections with no other
    cut of the same text, which does not count the preamble)."""

    __slots__ = ("fixed", "preamble", "number")

    def __init__(self, fixed: Fixed, preamble: str):
        self.fixed, self.preamble, self.number = fixed, preamble, 0

    def sections(self, unit: str) -> tuple[Section, ...]:
        return (Section("", None, sized(unit, self.preamble, -1), self.preamble, True),) + self.fixed.sections(unit)


class Cuts:
    """The responses cut so far, and their header lines, keyed by content.

    A response text read again (by another call, another ruleset, or another
    session of a sweep's worker) is the same cut; each distinct cut is
    numbered (`Call.text_key`). An equal header line is one Header, so its
    names are parsed at most once while it is held (the Header keeps them).

    Bounded, least recently used out (infra/memo.py): at most `limit`
    characters of response text (with their pieces and sections), and at most
    `headers_held` header lines. Keyed by the values the cut depends on (the
    source's header pattern and trailer) and by the text itself, compared
    whole; never by identity. `limit=None`: unbounded (one transcript's cuts).
    """

    __slots__ = ("_cuts", "headers", "count")

    def __init__(self, limit: int | None = None, headers_held: int | None = None):
        self._cuts = BoundedMemo(limit if limit is not None else 1 << 62)
        self.headers = BoundedMemo(headers_held if headers_held is not None else 1 << 62)  # (path, suffix) -> Header
        self.count = 0  # numbers go on past an eviction: a text_key is never reused

    @property
    def held(self) -> int:
        """Characters of response text held now."""
        return self._cuts.held

    def cut(self, text: str, rules) -> "_Cut":
        """The cut of `text` under `rules`' header pattern and trailer, made if new."""
        return self.cut_all((text,), rules)[0]

    def cut_all(self, texts, rules) -> list:
        """The cut of each text under `rules`' header pattern and trailer, made if new.

        Keyed by the rules, then by each text's length and ends, then compared
        whole: hashing every response text costs about three times the
        comparison, and an equal text is usually the same response read again.
        """
        header_re, trailer = rules.header, rules.trailer
        out = []
        for text in texts:
            key = (header_re, trailer, _ends(text))  # a Pattern's hash is kept: cheap to hash again
            same = self._cuts.get(key)
            cut = next((c for c in same if c.text == text), None) if same is not None else None
            if cut is None:
                self.count += 1
                cut = _Cut(text, header_re, trailer, self, self.count)
                same = (*same, cut) if same is not None else (cut,)
                self._cuts.put(key, same, sum(len(c.text) for c in same))
            out.append(cut)
        return out


class _Cut:
    """One response cut by one header pattern and trailer, for every ruleset that shares them.

    Rulesets that differ only in their unit or trailing_block (parse once,
    score many) reuse the regex work, and the sizes of every section but the
    last one.
    """

    __slots__ = ("text", "number", "_pieces", "_header_end", "preamble", "_meta", "_sections")

    def __init__(self, text: str, header_re, trailer: str, cuts: Cuts, number: int):
        self.text = text
        self.number = number
        self._sections: dict = {}
        # The last header line's length (the explore pattern's: "**`" path "`**" suffix).
        # `preamble`: the text before the first header (all of it when there is none), which the
        # explore source does not count and the mcp source counts as its options say.
        self._pieces, self._header_end, self.preamble = _pieces(text, header_re, trailer, cuts.headers)
        self._meta = None

    def sections(self, trailing_block: str, unit: str) -> tuple[Section, ...]:
        """The Section records; built once, as every call that returned this text holds equal ones.

        Every section but the last is the same record with or without a meta
        trailing block (same piece, same size): the other split's records are
        reused for those.
        """
        key = (trailing_block == "meta", unit)
        found = self._sections.get(key)
        if found is not None:
            return found
        pieces = self.pieces(trailing_block)
        other = self._sections.get((not key[0], unit))
        head = other[: len(self._pieces) - 1] if other is not None else ()
        found = self._sections[key] = head + tuple(
            Section(path, header, sized(unit, piece, size), piece, meta)
            for path, header, piece, meta, size in pieces[len(head):]
        )
        return found

    def pieces(self, trailing_block: str) -> tuple:
        if trailing_block != "meta" or not self._pieces:
            return self._pieces
        if self._meta is None:
            path, header, last, _, size = self._pieces[-1]
            kept, meta = _cut_after_last_fence(last, self._header_end)
            tail = ((path, header, kept, False, size if not meta else -1),) + ((("", None, meta, True, -1),) if meta else ())
            self._meta = self._pieces[:-1] + tail
        return self._meta


def _ends(text: str) -> tuple:
    """What Cuts files a text under before comparing it whole."""
    return (len(text), text[:64], text[-64:])


def _cut_after_last_fence(piece: str, header_end: int) -> tuple[str, str]:
    """Split a last section after the fence that closes its code block.

    A section without a code block (a stale "source omitted" header) ends
    with its header line; one whose last block is never closed is all source.
    `header_end` matters because a header's path may run over a line end.
    """
    count, last = _fences(piece, header_end)
    if count % 2:
        return piece, ""
    close = _line_end(piece, last) if count else piece.find("\n", header_end)
    if close == -1:
        return piece, ""
    if close < len(piece) and piece[close] == "\n":
        close += 1
    if not piece[close:].strip():  # blank lines are not a block
        return piece, ""
    return piece[:close], piece[close:]


def _fences(piece: str, start: int) -> tuple[int, int]:
    """(how many fence lines begin at or after `start`, where the last one begins).

    A fence line starts with ``` (the reference's multiline `^````, whose
    `^` is a line start only after a newline). Counting newline + ``` is a
    C loop, far faster than a multiline regex over a large last section; the
    occurrences cannot overlap, so the count is the number of fence lines.
    """
    count = piece.count("\n```", max(start - 1, 0))
    last = piece.rfind("\n```", max(start - 1, 0)) + 1
    if start == 0 and piece.startswith("```"):  # a fence on the first line has no newline before it
        count += 1  # and `last` is already 0 when it is the only one
    return count, last


def _line_end(piece: str, start: int) -> int:
    """Where the line beginning at `start` ends: its newline, or the end of `piece`."""
    end = piece.find("\n", start)
    return len(piece) if end == -1 else end
