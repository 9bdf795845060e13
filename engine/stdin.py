"""`score -` (and `/dev/stdin`, `explain -`, `check SPEC -`): one session read from standard input.

engine/reading.py asks here first, so every face reading one session takes `-` alike.

A pipe is no file a reader can claim, sniff and read again: its bytes are copied, as
they come, into a file of a fresh temporary folder (named `stdin.jsonl`, or
`stdin.json` for a Gemini CLI session document), read there as a FILE given by name,
and the folder is removed. What the session says of its file names it `<stdin>`
(inputs, warnings, every origin), so no temporary path reaches the output.
A `/dev/stdin` that is a regular file (`< run.jsonl`) is read in place, as any file.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys

import attrs
import orjson

from citeledger.core import UserError

NAMES = ("-", "/dev/stdin", "/dev/fd/0")
LABEL = "<stdin>"
_CHUNK = 1 << 20


def wanted(files) -> bool:
    """True when the FILEs given name standard input and it must be copied to be read."""
    if not any(f in NAMES for f in files):
        return False
    if len(files) > 1:
        raise UserError(f"{', '.join(files)}: standard input is one session: give it alone")
    if files[0] != "-":
        try:
            return not stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode)
        except (OSError, ValueError, AttributeError):
            return False
    return True


def read_stdin(read, files, *rest, **options):
    """`read([the copy], *rest, **options)` of standard input's bytes, its names made `<stdin>`."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise UserError(f"{files[0]}: no standard input to read")
    if stream.isatty():
        raise UserError(f"{files[0]}: standard input is a terminal: pipe a session into it "
                        "(`claude -p ... --output-format stream-json | citeledger score -`)")
    import tempfile  # a pipe only: a FILE given by name never imports it

    folder = tempfile.mkdtemp(prefix="citeledger-stdin-")
    try:
        path = _copy(stream, folder)
        try:
            return relabel(read([path], *rest, **options), path, LABEL)
        except UserError as exc:  # an error names the input as the output does
            raise UserError(str(exc).replace(path, LABEL)) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _copy(stream, folder: str) -> str:
    """Standard input into `folder`, under the name its first bytes call for; its path."""
    first = stream.read(_CHUNK)
    name = "stdin.json" if _document(first) else "stdin.jsonl"
    path = os.path.join(folder, name)
    with open(path, "wb") as out:
        while first:
            out.write(first)
            first = stream.read(_CHUNK)
    return path


def _document(head: bytes) -> bool:
    """A Gemini CLI session document (one JSON object holding `messages`), not JSON lines."""
    line, newline, _ = head.lstrip().partition(b"\n")
    line = line.strip()
    if line == b"{":
        return True
    try:
        first = orjson.loads(line)
    except orjson.JSONDecodeError:  # a first line longer than the head: a document's, if it opens as one
        return not newline and line.startswith(b'{"sessionId"')
    return isinstance(first, dict) and isinstance(first.get("messages"), list)


def named(files) -> set:
    """The FILEs given as the transcript names them: standard input's name is `<stdin>`."""
    return set(files) | ({LABEL} if any(f in NAMES for f in files) else set())


def relabel(value, old: str, new: str):
    """`value` (a record, tuple, list, dict or str) with `old` written `new` in every string it holds."""
    if isinstance(value, str):
        return value.replace(old, new) if old in value else value
    if isinstance(value, tuple):
        items = tuple(relabel(v, old, new) for v in value)
        return items if any(a is not b for a, b in zip(items, value)) else value
    if isinstance(value, list):
        return [relabel(v, old, new) for v in value]
    if isinstance(value, dict):
        return {relabel(k, old, new): relabel(v, old, new) for k, v in value.items()}
    if attrs.has(type(value)):
        changes = {}
        for field in attrs.fields(type(value)):
            if not field.init:
                continue
            now = getattr(value, field.name)
            made = relabel(now, old, new)
            if made is not now:
                changes[field.alias] = made
        return attrs.evolve(value, **changes) if changes else value
    return value
