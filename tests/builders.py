"""Build small transcripts by hand, so tests know every byte they contain."""

from __future__ import annotations

import json
from pathlib import Path

EXPLORE = "mcp__codegraph__codegraph_explore"


def section(path: str, suffix: str = "", size: int | None = None, body: str = "x") -> str:
    """A section of exactly `size` characters when given (ASCII padding)."""
    head = f"**`{path}`**{suffix}\n"
    text = head + body
    if size is not None:
        assert size >= len(text), (size, len(text))
        text += "." * (size - len(text) - 1) + "\n"
        assert len(text) == size
    return text


def response(*sections: str, preamble: str = "**Exploration: q**\n\n", trailer: str = "\n> Use these.") -> str:
    return preamble + "".join(sections) + trailer


def events(calls, answer=None, *, list_content=True, start=1):
    """stream-json events: one explore call per item of `calls`, then a result."""
    out = [{"type": "system", "subtype": "init", "tools": [EXPLORE]}]
    for i, text in enumerate(calls, start):
        tid = f"toolu_{i}"
        out.append({"type": "assistant", "message": {"id": f"msg_{i}", "content": [
            {"type": "tool_use", "id": tid, "name": EXPLORE, "input": {"query": "q"}}]}})
        content = [{"type": "text", "text": text}] if list_content else text
        out.append({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": tid, "content": content}]}})
    if answer is not None:
        out.append({"type": "result", "subtype": "success", "result": answer})
    return out


def write_jsonl(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(row if isinstance(row, str) else json.dumps(row, ensure_ascii=False))
            fh.write("\n")
    return path


def session(tmp_path: Path, calls, answer=None, name="run", **kw) -> Path:
    return write_jsonl(tmp_path / f"{name}.jsonl", events(calls, answer, **kw))


def use(tid, name, input=None, *, thread=None, message=None) -> dict:
    """An assistant event holding one tool_use (`message`: its message.id; None leaves it out)."""
    msg = {"content": [{"type": "tool_use", "id": tid, "name": name, "input": {} if input is None else input}]}
    if message is not None:
        msg["id"] = message
    event = {"type": "assistant", "message": msg}
    if thread is not None:
        event["parent_tool_use_id"] = thread
    return event


def answer_to(tid, text, *, thread=None, is_error=False) -> dict:
    """A user event holding one tool_result for `tid`."""
    block = {"type": "tool_result", "tool_use_id": tid, "content": [{"type": "text", "text": text}]}
    if is_error:
        block["is_error"] = True
    event = {"type": "user", "message": {"content": [block]}}
    if thread is not None:
        event["parent_tool_use_id"] = thread
    return event


def explored(tid, query, text, *, thread=None, message=None) -> list[dict]:
    """An explore call and its answer."""
    return [use(tid, EXPLORE, {"query": query}, thread=thread, message=message), answer_to(tid, text, thread=thread)]


def as_re(pattern: str):
    """A ruleset pattern (RE2 syntax) as Python's re reads it, for an oracle: RE2's
    \\x{HHHH} is re's \\uHHHH, and re runs the header's line-start lookbehind itself."""
    import re

    return re.compile(re.sub(r"\\x\{([0-9a-fA-F]{4})\}", r"\\u\1", pattern), re.ASCII)
