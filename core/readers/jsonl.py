"""Read JSONL files line by line the way the reference reads them.

The reference reads a file as UTF-8 text, splits it on "\\n" and runs
JSON.parse on each line. Lines are read here in bounded chunks so a single
enormous line is skipped without being held in memory.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Iterator, NamedTuple

import orjson

from citeledger.core import kernel
from citeledger.core.readers.base import open_regular
from citeledger.core.transcript import InputWarning

BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20


class Line(NamedTuple):
    number: int  # 1-based
    value: object  # the decoded JSON value
    bom: bool  # the line began with a UTF-8 byte order mark


def _reject_constant(name: str):
    # JSON.parse rejects NaN and Infinity; Python's json accepts them.
    raise ValueError(f"{name} is not JSON")


def decode_line(raw: bytes) -> object:
    """JSON.parse of one line: orjson first, then the lenient path.

    orjson refuses invalid UTF-8 and lone surrogate escapes, which JavaScript
    accepts (its decoder substitutes U+FFFD); the fallback reproduces that.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = raw.decode("utf-8", "replace")
        return json.loads(text, parse_constant=_reject_constant)


def _runs(stream, max_line_bytes: int) -> Iterator[tuple[bytes, int, int] | None]:
    """The stream's lines as runs of whole lines, (buffer, start, end), read in bounded chunks.

    A run is a chunk's lines up to its last newline, or one line begun in
    earlier chunks (without its newline), or the file's last line when it has
    none. None stands for one line that grew past `max_line_bytes` across
    chunks: its bytes are dropped as they are read, never held whole. A line
    inside a run may still be over the limit: the reader of the run checks.
    A line begun in earlier chunks comes as the working bytearray itself (a
    copy of every chunk-crossing line cost a tenth of reading): read it
    before asking for the next run, which reuses it.
    """
    pending = bytearray()  # the start of a line that continues in the next chunk
    too_long = False
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
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


def _raw_lines(stream, max_line_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """Yield (line number, bytes) per "\\n"-separated line; None for a line over the limit."""
    number = 0
    for run in _runs(stream, max_line_bytes):
        if run is None:
            number += 1
            yield number, None
            continue
        buffer, start, end = run
        if type(buffer) is bytearray:  # a chunk-crossing line: _runs reuses its bytearray
            buffer = bytes(buffer)
        while start < end:
            nl = buffer.find(b"\n", start, end)
            if nl == -1:  # a run's last line without its newline
                nl = end
            number += 1
            yield number, None if nl - start > max_line_bytes else buffer[start:nl]
            start = nl + 1


def read_jsonl(path: str, warnings: list, max_line_bytes: int = 64 << 20, keys=None) -> Iterator[Line]:
    """Decoded lines of a JSONL file; what cannot be decoded becomes a warning.

    Blank lines are skipped silently (every file ends with one after its last
    newline); other undecodable lines are reported with file and line.
    `keys`, a `Keys` schema, says which keys of each object the caller reads:
    with the C scanner, objects hold only those (the rest is validated and
    skipped); without it, every key. Raises OSError if the file cannot be opened.
    """
    if keys is not None and kernel.scan is not None:
        for batch in read_batches(path, warnings, max_line_bytes, keys):
            yield from batch
        return
    with open_regular(path) as stream:  # a FIFO is refused, never waited on
        for number, raw in _raw_lines(stream, max_line_bytes):
            line = _decoded(path, number, raw, warnings, max_line_bytes)
            if line is not None:
                yield line


def read_batches(path: str, warnings: list, max_line_bytes: int = 64 << 20, keys=None) -> Iterator[list[Line]]:
    """read_jsonl's lines a list at a time: a chunk's worth through the scanner, one line without.

    For a reader that walks every line (open_events): a generator step per
    chunk instead of two per line. A batch is handed over before any later
    line is decoded, so a later line's warning still follows those the
    caller adds for the lines before it.
    """
    with open_regular(path) as stream:  # a FIFO is refused, never waited on
        if keys is not None and kernel.scan is not None:
            yield from _scanned(path, stream, warnings, max_line_bytes, keys.compiled())
            return
        for number, raw in _raw_lines(stream, max_line_bytes):
            line = _decoded(path, number, raw, warnings, max_line_bytes)
            if line is not None:
                yield (line,)


def _decoded(path: str, number: int, raw: bytes | None, warnings: list, max_line_bytes: int) -> Line | None:
    """One line as Line, or None (blank, or a warning appended)."""
    if raw is None:
        warnings.append(InputWarning(path, number, f"line longer than {max_line_bytes:,} bytes, skipped"))
        return None
    bom = raw.startswith(BOM)
    body = raw[3:] if bom else raw
    if not body.strip():
        return None
    try:
        value = decode_line(body)
    except (ValueError, RecursionError) as exc:
        warnings.append(InputWarning(path, number, f"not JSON ({_reason(exc, body)}), skipped"))
        return None
    return Line(number, value, bom)


class Keys:
    """The keys a reader reads of each decoded object, for the C scanner.

    `spec` maps a key to None (its value whole), a spec (an object value
    pruned by it) or [spec] (each element of an array value pruned by it).
    Compiled once per process, on first use.
    """

    def __init__(self, spec: dict):
        self.spec = spec
        self._compiled = None

    def compiled(self):
        if self._compiled is None:
            self._compiled = kernel.scan.schema(self.spec)
        return self._compiled


def _scanned(path: str, stream, warnings: list, max_line_bytes: int, schema) -> Iterator[list[Line]]:
    """read_batches through core/_scan.c: each run of lines (`_runs`) decoded in C.

    The same lines as _raw_lines, the same values but for keys the schema
    drops; a line the scanner hands back raw is decoded by _decoded, as
    without the scanner, so its value or warning is the same.
    """
    scan = kernel.scan.scan
    number = 0
    for run in _runs(stream, max_line_bytes):
        if run is None:
            number += 1
            _decoded(path, number, None, warnings, max_line_bytes)  # the over-the-limit warning
            continue
        found, number, handed_back = scan(*run, number, max_line_bytes, schema, Line)
        yield from _batches(found, handed_back, path, warnings, max_line_bytes)


def _batches(found: list, handed_back: int, path: str, warnings: list, max_line_bytes: int) -> Iterator[list[Line]]:
    """The scanner's items as batches of Lines: its own, and the raw ones decoded
    the pure way, each only once the Lines before it have been handed over."""
    if not handed_back:
        if found:
            yield found
        return
    run: list[Line] = []
    for item in found:
        if type(item) is Line:
            run.append(item)
            continue
        if run:
            yield run
            run = []
        line = _decoded(path, item[0], item[1], warnings, max_line_bytes)
        if line is not None:
            run.append(line)
    if run:
        yield run


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
            keys = list(item)
            index_keys = sorted((k for k in keys if _is_index(k)), key=int)
            ordered = index_keys + [k for k in keys if not _is_index(k)]
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


def _js_string(s: str) -> str:
    # JSON.stringify escapes lone surrogates as \\udXXX and keeps other text.
    out = json.dumps(s, ensure_ascii=False)
    if any("\ud800" <= ch <= "\udfff" for ch in s):
        out = "".join(f"\\u{ord(ch):04x}" if "\ud800" <= ch <= "\udfff" else ch for ch in out)
    return out
