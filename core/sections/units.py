"""Character units a ruleset can count sections in."""

from __future__ import annotations

from typing import Callable

from citeledger.infra.jsstr import utf16_len


def _utf8_len(text: str) -> int:
    if text.isascii():  # one byte each, without building the bytes
        return len(text)
    # A section's non-ASCII is usually in its header line only (a "—"): when
    # the rest is ASCII, copying it out and taking len() is about 3x faster
    # than the UTF-8 encoder's per-character loop over a 2-byte-wide string.
    # Sizes add up across a line end, so the total is the same.
    end = text.find("\n")
    if end != -1:
        rest = text[end:]
        if rest.isascii():
            return _encoded_utf8_len(text[:end]) + len(rest)
    return _encoded_utf8_len(text)


def _encoded_utf8_len(text: str) -> int:
    # surrogatepass: lone surrogates from JSON escapes still have a size.
    return len(text.encode("utf-8", "surrogatepass"))


MEASURES: dict[str, Callable[[str], int]] = {
    "utf16": utf16_len,  # JavaScript string length: the reference's unit
    "codepoint": len,
    "utf8": _utf8_len,
}


def sized(unit: str, text: str, utf8_len: int = -1) -> int:
    """MEASURES[unit](text), told `utf8_len`, len(text.encode("utf-8")) when known (-1: not).

    A cut made in UTF-8 bytes knows both lengths without another pass over
    the text. The UTF-8 length less the code point count is 1 for each
    2-byte character, 2 for each 3-byte one and 3 for each 4-byte (astral)
    one: below 3, no character is astral, so the UTF-16 length is the code
    point count (most sections: one "—" in the header line).
    """
    if utf8_len >= 0:
        if unit == "utf8":
            return utf8_len
        if unit == "utf16" and utf8_len - len(text) < 3:
            return len(text)
    return MEASURES[unit](text)
