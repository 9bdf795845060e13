"""Codex "code mode" (Codex CLI 0.144): every tool call is a `custom_tool_call` named `exec`
whose `input` is JavaScript calling the real tools (`const r = await
tools.exec_command({"cmd": ..., "workdir": ...}); text(r.output);`), answered by a
`custom_tool_call_output` whose first `input_text` item is the script's own header
(`Script completed\\nWall time 0.2 seconds\\nOutput:\\n`) and the rest what it printed
(FACTS.md §9, public-c/gildore-arena/45c7e7dd).

A script that runs shell commands through `tools.exec_command` is read as the
`exec_command` call it makes: its command (several calls' commands one per line, in
order), its `workdir`; its output is the printed items after the header. Any other
script (`tools.web__run`, plain JavaScript) stays an `exec` call.
"""

from __future__ import annotations

import json
import re
from typing import Optional

CODE_MODE_TOOL = "exec"
SHELL_CALL = "exec_command"
_CALL = re.compile(r"\btools\.exec_command\s*\(\s*")
_HEADER = re.compile(r"\AScript (completed|failed|errored|timed out)[^\n]*\n(?:[^\n]*\n){0,4}?Output:\n?\Z")


def shell_calls(script: str) -> Optional[dict]:
    """{"cmd": the commands one per line, "workdir": the first one's} of a code-mode script's
    `tools.exec_command({...})` calls, or None when it makes none (or one cannot be read)."""
    commands, workdir = [], None
    decoder = json.JSONDecoder()
    for match in _CALL.finditer(script):
        try:
            given, _ = decoder.raw_decode(script, match.end())
        except ValueError:
            return None
        if not isinstance(given, dict) or not isinstance(given.get("cmd"), str):
            return None
        commands.append(given["cmd"])
        if workdir is None and isinstance(given.get("workdir"), str):
            workdir = given["workdir"]
    if not commands:
        return None
    return {"cmd": "\n".join(commands), **({"workdir": workdir} if workdir else {})}


def script_output(blocks: tuple) -> tuple[tuple[str, ...], bool]:
    """(the printed blocks, failed) of a code-mode result: its header item dropped; a script
    that did not complete is a failed call. Blocks without the header are as they are."""
    if blocks and _HEADER.match(blocks[0]):
        status = _HEADER.match(blocks[0]).group(1)
        return tuple(blocks[1:]), status != "completed"
    return blocks, False
