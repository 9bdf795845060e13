"""What a Codex shell call returned to the model: its output and exit code.

Codex CLI hands a shell call's result to the model in one of three shapes
(docs/codex.md, read from openai/codex `codex-rs/core/src/tools/mod.rs` and
`tools/handlers/unified_exec.rs`):

- structured (the `shell` tool): the JSON text `{"output": ..., "metadata":
  {"exit_code": N, "duration_seconds": S}}`;
- freeform (`shell_command`): header lines `Exit code: N`, `Wall time: S
  seconds`, optionally `Total output lines: N`, then `Output:` and the output;
- unified exec (`exec_command`, `write_stdin`): `Chunk ID: ...`, `Wall time:
  ...`, `Process exited with code N` (or `Process running with session ID N`
  while it runs), optionally `Original token count: N`, then `Output:` and the
  output. A freeform output may start with a model-output prefix line and a
  blank line before its headers.

Only the output is the file's text; a non-zero exit is a failed call (as
Claude Code's `is_error`).
"""

from __future__ import annotations

import re
from typing import Optional

import orjson

# One header line of the freeform and unified-exec shapes; group 1 is an exit code.
_HEADER = re.compile(
    r"(?:Exit code: (-?\d{1,12})|Process exited with code (-?\d{1,12})|Wall time: [^\n]*|Chunk ID: [^\n]*"
    r"|Process running with session ID [^\n]*|Original token count: \d+|Total output lines: \d+)\Z"
)
_OUTPUT = "Output:"
_MAX_HEADERS = 8  # the shapes above have at most five header lines (and a prefix)


def exit_and_output(text: str) -> Optional[tuple[Optional[int], str]]:
    """(exit code or None while running, output) of a freeform or unified-exec
    result, or None when `text` is neither (it is then the output as is)."""
    head = text.split("\n", _MAX_HEADERS + 1)
    code: Optional[int] = None
    seen = 0
    for index, line in enumerate(head[:_MAX_HEADERS + 1]):
        if line == _OUTPUT:
            if seen == 0:
                return None
            rest = text.split("\n", index + 1)
            return code, rest[index + 1] if len(rest) > index + 1 else ""
        match = _HEADER.match(line)
        if match is None:
            if seen == 0 and index <= 1:
                continue  # a model-output prefix (and its blank line) before the headers
            return None
        seen += 1
        found = match.group(1) or match.group(2)
        if found is not None:
            code = int(found)
    return None


def shell_output(blocks: tuple) -> tuple[tuple[str, ...], bool]:
    """(output blocks, failed) of a shell call's result blocks: the output alone
    of every shape above; a text of no known shape as is."""
    if len(blocks) != 1:
        return blocks, False
    text = blocks[0]
    if text[:1] == "{":
        try:
            decoded = orjson.loads(text)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
            meta = decoded.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            return (decoded["output"],), type(code) is int and code != 0
    parsed = exit_and_output(text)
    if parsed is None:
        return blocks, False
    code, output = parsed
    return (output,), code is not None and code != 0
