"""Read JSONL files line by line the way the reference reads them.

The reference reads a file as UTF-8 text, splits it on "\\n" and runs
JSON.parse on each line. Lines are read here in bounded chunks so a single
enormous line is skipped without being held in memory, and only up to the
size the file had when it was opened (a file a writer keeps appending to
would otherwise be read for as long as it writes).
"""

from __future__ import annotations

import errno
import functools
import itertools
import json
import math
import os
import re
from decimal import Decimal
from typing import Annotated, Callable, Iterator, List, NamedTuple, Optional, TypedDict, Union

import msgspec
import orjson

from citeledger.infra import fs
from citeledger.infra.files import open_regular, open_regular_fd
from citeledger.infra.records import InputWarning

BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20


class Line(NamedTuple):
    number: int  # 1-based
    value: object  # the decoded JSON value
    bom: bool  # the line began with a UTF-8 byte order mark


def _reject_constant(name: str):
    # JSON.parse rejects NaN and Infinity; Python's json accepts them.
    raise ValueError(f"{name} is not JSON")


# orjson keeps an integer literal an int within 64 bits (signed or unsigned)
# and reads any other as a double, as JSON.parse reads every number.
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1


def _js_int(text: str):
    """An integer literal as decode_line reads it: an int within orjson's range, else a double.

    A literal of thousands of digits becomes ±inf (node: Infinity) and never
    reaches int(), which refuses more than 4,300 digits.
    """
    if len(text) <= 21:  # "-" and 20 digits: wide enough for every int in range
        value = int(text)
        if _INT_MIN <= value <= _INT_MAX:
            return value
    return float(text)


def decode_line(raw: bytes) -> object:
    """JSON.parse of one line: orjson first, then the exact semantics for what it refuses.

    orjson refuses invalid UTF-8 and lone surrogate escapes, which JavaScript
    accepts (its decoder substitutes U+FFFD for invalid UTF-8 and keeps the
    surrogate), and numbers beyond a double's range, which JavaScript reads
    as ±Infinity; the fallback reproduces that. Raises ValueError (or
    RecursionError for nesting deeper than either decoder allows).

    Nesting deeper than orjson's 1,024 levels is refused on every Python:
    json's own limit moves with the interpreter (3.13 reads what 3.11
    cannot), and a transcript event is never nested that deep.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("depth limit exceeded"):
            raise ValueError("nested too deeply") from None  # the same warning as a RecursionError
        text = raw.decode("utf-8", "replace")
        return json.loads(text, parse_constant=_reject_constant, parse_int=_js_int)


def first_line(path: str, head: bytes, asked: int, limit: int) -> Optional[bytes]:
    """The first non-blank line of `path` as read_jsonl reads it (a leading BOM removed), for a
    reader's claim; decode it with decode_line, as the reading does.

    `head` is read_head(path, asked): a line ending inside it is taken from it;
    otherwise the file is read on, one line bounded at `limit` bytes. None when
    the file has no non-blank line or that line is longer than `limit` (the
    caller may still know it by its start, in `head`).
    """
    lines = head.split(b"\n")
    whole = len(head) < asked  # the file ends inside the head: its last line is complete too
    for raw in lines if whole else lines[:-1]:
        body = raw[3:] if raw.startswith(BOM) else raw
        if body.strip():
            return body
    if whole:
        return None
    with open_regular(path) as fh:
        for raw in iter(lambda: fh.readline(limit), b""):
            if len(raw) == limit and not raw.endswith(b"\n"):
                return None
            body = raw[3:] if raw.startswith(BOM) else raw
            if body.strip():
                return body
    return None


class Keys:
    """The keys a reader reads of each decoded object, for typed decoding.

    `spec` maps a key to None (its value whole), a spec (an object value
    pruned by it) or [spec] (each element of an array value pruned by it).
    A line is decoded by msgspec into plain dicts holding only those keys:
    the other keys' values are checked as JSON, not built. Anything msgspec
    refuses (invalid UTF-8 or a lone surrogate in a kept string, a number out
    of range, not JSON) is decoded whole by decode_line, whose verdict
    stands. So a kept key's value is decode_line's, but for an integer
    beyond 64 bits nested inside it (an int here, a float there, both the
    same JavaScript number to the js_* functions). Built on first use.
    """

    def __init__(self, spec: dict):
        self.spec = spec
        self._decode: Optional[Callable[[bytes], object]] = None

    def decoder(self) -> Callable[[bytes], object]:
        if self._decode is None:
            self._decode = msgspec.json.Decoder(_one_of(_typed_dict(self.spec))).decode
        return self._decode


# A kept value's own number, if an integer, must be one orjson keeps an int
# (the int64 part of its range; msgspec bounds no wider): any other is left
# to decode_line, so a number a warning prints is the same either way.
_Int = Annotated[int, msgspec.Meta(ge=-(1 << 63), le=(1 << 63) - 1)]
_Whole = Union[str, _Int, float, bool, None, list, dict]
_names = itertools.count(1)


def _one_of(obj) -> object:
    """Any JSON value, an object decoded as `obj`."""
    return Union[obj, list, str, _Int, float, bool, None]


def _typed_dict(spec: dict) -> type:
    fields = {}
    for key, sub in spec.items():
        if sub is None:
            fields[key] = _Whole
        elif isinstance(sub, list):
            fields[key] = Union[List[_one_of(_typed_dict(sub[0]))], dict, str, _Int, float, bool, None]
        else:
            fields[key] = _one_of(_typed_dict(sub))
    return TypedDict(f"Pruned{next(_names)}", fields, total=False)


def _runs(read: Callable[[int], bytes], max_line_bytes: int, size: Optional[int] = None) -> Iterator[tuple[bytes, int, int] | None]:
    """The stream's lines as runs of whole lines, (buffer, start, end), read in bounded chunks.

    A run is a chunk's lines up to its last newline, or one line begun in
    earlier chunks (without its newline), or the last line read when it has
    none. None stands for one line that grew past `max_line_bytes` across
    chunks: its bytes are dropped as they are read, never held whole. A line
    inside a run may still be over the limit: the reader of the run checks.
    A line begun in earlier chunks comes as the working bytearray itself (a
    copy of every chunk-crossing line cost a tenth of reading): read it
    before asking for the next run, which reuses it. `read(n)` returns up to
    n bytes (b"" at the end); `size`, when given, is how many are read at most.
    """
    pending = bytearray()  # the start of a line that continues in the next chunk
    too_long = False
    left = -1 if size is None else size
    while left:
        chunk = read(_CHUNK if left < 0 else min(_CHUNK, left))
        if not chunk:
            break
        if left > 0:
            left -= len(chunk)
        nl = chunk.find(b"\n")
        if nl == -1:
            if not too_long:
                pending += chunk
                if len(pending) > max_line_bytes:
                    too_long = True
                    pending.clear()
            continue
        start = 0
        if pending or too_long:  # the line begun in earlier chunks ends at nl
            if too_long:
                yield None
            else:
                pending += chunk[:nl]
                yield pending, 0, len(pending)
            pending.clear()
            too_long = False
            start = nl + 1
        last = chunk.rfind(b"\n")
        if last >= start:
            yield chunk, start, last + 1
        pending += chunk[last + 1:]
        if len(pending) > max_line_bytes:
            too_long = True
            pending.clear()
    if too_long:
        yield None
    elif pending:
        yield pending, 0, len(pending)


# The largest transcript file read (its size when opened). Real logs are at most a few
# hundred MB; a file past this (say one growing without end) is refused unread.
MAX_TRANSCRIPT_BYTES = 4 << 30


def read_jsonl(path: str, warnings: list, max_line_bytes: int = 64 << 20, keys: Optional[Keys] = None) -> Iterator[Line]:
    """Decoded lines of a JSONL file; what cannot be decoded becomes a warning.

    With `keys`, objects hold only the keys it names (see Keys); without,
    every key.

    Blank lines are skipped silently (every file ends with one after its last
    newline); other undecodable lines are reported with file and line. Only
    the bytes the file held when opened are read: if it grew meanwhile, a
    warning says so, after those of its lines. A line's warning is appended
    only once the lines before it have been handed over, so it follows any
    the caller adds for them. Raises OSError if the file cannot be opened.
    """
    source = _Source(path)  # a FIFO is refused, never waited on
    size = source.size
    if size > MAX_TRANSCRIPT_BYTES:  # refused at open, before a byte is read (docs/robustness.md)
        source.close()
        raise OSError(errno.EFBIG, f"larger than the transcript limit of {MAX_TRANSCRIPT_BYTES:,} bytes at open, not read")
    try:
        typed = keys.decoder() if keys is not None else None
        number = 0
        # The runs split into lines and _decoded, inline: this loop runs for every line of a corpus.
        # A line opening with "{" is neither blank nor BOM-led, so its memoryview
        # goes to the decoder as is (no copy); any other line, and any line the
        # typed decoder refuses, takes _decoded's whole path.
        for run in _runs(source.read, max_line_bytes, size):
            if run is None:
                number += 1
                _decoded(path, number, None, warnings, max_line_bytes)
                continue
            buffer, start, end = run
            if type(buffer) is bytearray:  # a chunk-crossing line: _runs reuses its bytearray
                buffer = bytes(buffer)
            view = memoryview(buffer)
            find = buffer.find
            while start < end:
                nl = find(b"\n", start, end)
                if nl == -1:  # a run's last line without its newline
                    nl = end
                number += 1
                if nl - start > max_line_bytes:
                    line = _decoded(path, number, None, warnings, max_line_bytes)
                elif typed is not None and buffer[start] == 0x7B:  # "{"
                    try:
                        line = Line(number, typed(view[start:nl]), False)
                    except (msgspec.DecodeError, RecursionError):
                        line = _decoded(path, number, buffer[start:nl], warnings, max_line_bytes)
                else:
                    line = _decoded(path, number, buffer[start:nl], warnings, max_line_bytes, typed)
                start = nl + 1
                if line is not None:
                    yield line
        grown = source.grown()
        if grown is not None:
            now, ended = grown
            warnings.append(InputWarning(path, number + 1 if ended else number, (
                f"file grew while being read (from {size:,} to {now:,} bytes): "
                f"read as it was when opened, the rest left unread")))
    finally:
        source.close()


class _Source:
    """A transcript file opened for read_jsonl: a local descriptor (os calls, no file object:
    this read is the sweep's hot loop), or a URL's file object (infra/fs.py, fsspec)."""

    def __init__(self, path: str):
        self.fd = self.fh = None
        if fs.is_url(path):
            self.fh, self.size = fs.open_url(path)
            self.read = self.fh.read
        else:
            self.fd, self.size = open_regular_fd(path)
            self.read = functools.partial(os.read, self.fd)

    def grown(self) -> Optional[tuple[int, bool]]:
        """(size now, whether the bytes read end a line) if the file grew since it was opened, else None.
        An object behind a URL is written whole (object stores do not append): never."""
        if self.fd is None:
            return None
        now = os.fstat(self.fd).st_size
        if now <= self.size:
            return None
        # The first byte left unread opens the next line, or continues the last one read.
        return now, self.size == 0 or os.pread(self.fd, 1, self.size - 1) == b"\n"

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
        else:
            self.fh.close()


def _decoded(path: str, number: int, raw: bytes | None, warnings: list, max_line_bytes: int,
             typed: Optional[Callable[[bytes], object]] = None) -> Line | None:
    """One line as Line, or None (blank, or a warning appended); `typed`: Keys.decoder()."""
    if raw is None:
        warnings.append(InputWarning(path, number, f"line longer than {max_line_bytes:,} bytes, skipped"))
        return None
    bom = raw.startswith(BOM)
    body = raw[3:] if bom else raw
    if not body.strip():
        return None
    if typed is not None:
        try:
            return Line(number, typed(body), bom)
        except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
            pass
    try:
        value = decode_line(body)
    except (ValueError, RecursionError) as exc:
        warnings.append(InputWarning(path, number, f"not JSON ({_reason(exc, body)}), skipped"))
        return None
    return Line(number, value, bom)


def _reason(exc: Exception, body: bytes) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if not body.rstrip().endswith((b"}", b"]")) and body.lstrip().startswith((b"{", b"[")):
        return "truncated"
    text = str(exc).split(":")[0]
    return text[:60] or "invalid"


def js_stringify(value) -> str:
    """JSON.stringify for a decoded JSON value (compact).

    Differs from json.dumps where JavaScript does: integer-like keys come first
    in ascending order, numbers print as Number#toString, lone surrogates are
    escaped. Iterative, so a value nested as deeply as the decoder allows
    (orjson: 1024 levels) cannot exhaust Python's recursion limit.
    """
    out: list[str] = []
    # Work items: a decoded value, or a 1-tuple holding literal output.
    stack: list = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            out.append(item[0])
        elif isinstance(item, dict):
            ordered = js_key_order(item)
            parts: list = [("{",)]
            for i, k in enumerate(ordered):
                parts += [((",", ) if i else ("",)), (_js_string(str(k)) + ":",), item[k]]
            parts.append(("}",))
            stack.extend(reversed(parts))
        elif isinstance(item, list):
            parts = [("[",)]
            for i, v in enumerate(item):
                parts += [((",",) if i else ("",)), v]
            parts.append(("]",))
            stack.extend(reversed(parts))
        else:
            out.append(_js_scalar(item))
    return "".join(out)


def js_string(value) -> str:
    """JavaScript's String() of a decoded JSON value (spec section 1).

    A number prints as Number#toString (a huge integer, Infinity to
    JSON.parse, as "Infinity"), a list as Array#join(",") whose null items
    are empty, an object as "[object Object]". Iterative, like js_stringify.
    """
    if type(value) is str:
        return value
    out: list[str] = []
    stack: list = [(value, True)]  # (value, top level); a 1-tuple is literal output
    while stack:
        item = stack.pop()
        if len(item) == 1:
            out.append(item[0])
            continue
        value, top = item
        if isinstance(value, list):
            parts: list = []
            for i, v in enumerate(value):
                if i:
                    parts.append((",",))
                parts.append((v, False))
            stack.extend(reversed(parts))
        elif value is None:
            out.append("null" if top else "")  # Array#join writes null items as ""
        elif isinstance(value, dict):
            out.append("[object Object]")
        elif isinstance(value, str):
            out.append(value)
        else:
            out.append(_js_string_of_number(value))
    return "".join(out)


def _js_string_of_number(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        x = float(value)
    except OverflowError:  # JSON.parse reads a huge integer as Infinity
        x = math.inf if value > 0 else -math.inf
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return _js_number(x)


def _js_scalar(value) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, int):  # a JavaScript number is a double
        try:
            return _js_number(float(value))
        except OverflowError:
            return "null"
    if isinstance(value, str):
        return _js_string(value)
    return json.dumps(value)


def js_key_order(keys) -> list:
    """A JavaScript object's key order: integer-like keys first, ascending, then the rest as written."""
    keys = list(keys)
    index = sorted((k for k in keys if _is_index(k)), key=int)
    return index + [k for k in keys if not _is_index(k)]


def _is_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1


def _js_number(x: float) -> str:
    """Number.prototype.toString: the shortest round-trip digits, laid out as
    JavaScript does (plain notation from 1e-7 up to 1e21, exponent outside)."""
    if not math.isfinite(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr gives the shortest round-trip digits; only the layout differs.
    _, digit_tuple, exp = Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    exp += len(digit_tuple) - len(digits)
    k, n = len(digits), exp + len(digits)  # n: position of the decimal point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'-' if e < 0 else '+'}{abs(e)}"
    return sign + text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _js_string(s: str) -> str:
    # JSON.stringify escapes lone surrogates as \\udXXX and keeps other text.
    out = json.dumps(s, ensure_ascii=False)
    if not s.isascii() and _SURROGATE.search(s):  # found in C, not a loop over every character
        out = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out
