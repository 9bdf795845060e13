"""Character units a ruleset can count sections in."""

from __future__ import annotations

from typing import Callable

from .jsstr import utf16_len


def _utf8_len(text: str) -> int:
    if text.isascii():  # one byte each, without building the bytes
        return len(text)
    # surrogatepass: lone surrogates from JSON escapes still have a size.
    return len(text.encode("utf-8", "surrogatepass"))


MEASURES: dict[str, Callable[[str], int]] = {
    "utf16": utf16_len,  # JavaScript string length: the reference's unit
    "codepoint": len,
    "utf8": _utf8_len,
}
