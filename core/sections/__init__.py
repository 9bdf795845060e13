"""Sections: an explore response cut into one piece per returned file.

The records here (`Section`, `Header`, `Call`) are what the splitter
(`splitter.py`, with the header grammar in `header.lark`) makes of a response
text; the accountant charges them and the channels judge them.
"""

from __future__ import annotations

from typing import Optional

import attrs

from citeledger.core.transcript import Origin

frozen = attrs.frozen


@frozen
class Symbol:
    name: str
    kind: str


@attrs.frozen(cache_hash=True)  # a dict key of channels' per-envelope work
class Header:
    """A parsed section header line."""

    path: str
    suffix: str
    symbols: tuple[Symbol, ...]  # every `name(kind)` item, any kind
    more: Optional[int] = None  # the `+N more` count
    tags: tuple["RenderTag", ...] = ()


@frozen
class RenderTag:
    """A render tag (`· focused (...)`, `· skeleton (...)`) and the bare names listed before it."""

    tag: str
    names: tuple[str, ...]


class _Span:
    """Where a Section's text lies in its response until the text is first read."""

    __slots__ = ("_source", "_start", "_end")


@frozen
class Section(_Span):
    """One file's section of an explore response.

    `chars` is measured in the ruleset's unit; `text` is kept for channels that
    look inside the source (line ranges, quotes). The kernel's splitter makes
    Sections whose text is sliced from the response on first read: the
    reference's channels never read it, and copying every section was a
    fifth of cutting.
    """

    path: str
    header: Optional[Header]
    chars: int
    text: str
    meta: bool = False  # a trailing non-source block, charged to no file


@frozen
class Call:
    """One explore response that had at least one section."""

    number: int  # 1-based, after responses without sections are dropped
    sections: tuple[Section, ...]
    origin: Origin
    # Calls of one transcript that returned the same text share a key (and
    # equal sections), so their sizes are tallied once; 0: not known.
    text_key: int = 0


_TEXT = Section.__dict__["text"]  # the slot attrs made for the field


def _text(self) -> str:
    try:
        return _TEXT.__get__(self)
    except AttributeError:  # a lazily cut Section (_kernel.sections): slice it now
        text = self._source[self._start:self._end]
        _TEXT.__set__(self, text)
        return text


# attrs' __init__, __eq__, __repr__ and pickling all go through getattr /
# object.__setattr__, so they see the text either way.
Section.text = property(_text, _TEXT.__set__, doc="The section's text, header line included.")


class NotFillable(TypeError):
    """A record class whose attrs __init__ does more than fill its slots."""


def _slots(cls, names: tuple[str, ...], extra: tuple[str, ...] = (), own: dict | None = None) -> tuple:
    """The slot descriptors the kernel fills for `cls`, in this order: its
    fields (`names`, in attrs' order), then the `extra` slots. NotFillable
    when attrs' __init__ would do more than fill those slots."""
    fields = attrs.fields(cls)
    declared = {s for klass in cls.__mro__ for s in getattr(klass, "__slots__", ())} - {"__weakref__"}
    if (
        tuple(f.name for f in fields) != names
        or any(f.validator or f.converter for f in fields)
        or hasattr(cls, "__attrs_post_init__") or hasattr(cls, "__attrs_pre_init__")
        or declared != set(names) | set(extra)
    ):
        raise NotFillable(f"{cls.__name__}: its attrs __init__ does more than fill {names + extra}")
    own = own or {}  # slots whose class attribute was replaced (Section.text)
    return tuple(
        own.get(n) or next(k.__dict__[n] for k in cls.__mro__ if n in k.__dict__) for n in (*names, *extra)
    )


def _bind(native) -> None:
    """Hand the kernel the record classes it makes (core/_kernel.c `bind`)."""
    native.bind(
        Symbol, _slots(Symbol, ("name", "kind")),
        RenderTag, _slots(RenderTag, ("tag", "names")),
        # attrs' hash cache, which its __init__ sets to None (so does the kernel)
        Header, _slots(Header, ("path", "suffix", "symbols", "more", "tags"), ("_attrs_cached_hash",)),
        Section, _slots(Section, ("path", "header", "chars", "text", "meta"), ("_source", "_start", "_end"),
                        own={"text": _TEXT}),
    )


def record_maker(cls):
    """A constructor of the attrs record class `cls` taking every field, positionally
    in attrs' order: the kernel's slot-filling Maker (several times faster than
    attrs' __init__), or `cls` itself on the pure-Python path (or for a class
    the kernel cannot fill)."""
    if _native is None:
        return cls
    names = tuple(f.name for f in attrs.fields(cls))
    extra = ("_attrs_cached_hash",) if "_attrs_cached_hash" in getattr(cls, "__slots__", ()) else ()
    try:
        return _native.Maker(cls, _slots(cls, names, extra), len(names))
    except NotFillable:
        return cls


from citeledger.core.kernel import native as _native  # noqa: E402  (after the records it binds)

# Whether the kernel makes the section records (cut_headers, sections, header):
# the splitter and header.py take the pure path otherwise.
KERNEL_RECORDS = False
if _native is not None:
    try:
        _bind(_native)
        KERNEL_RECORDS = True
    except NotFillable:
        pass
