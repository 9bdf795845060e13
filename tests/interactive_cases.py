"""Small interactive session logs (a main log and its subagents' files) for the harness's
session report, each built so its tallies and token sums can be worked out by hand.

`write_session(folder, name)` writes <folder>/<name>/<id>.jsonl with its
<id>/subagents/ files and returns the log's path.
"""

from __future__ import annotations

import json
from pathlib import Path


EXPLORE = "mcp__codegraph__codegraph_explore"
SESSION = "0a1b2c3d-0000-4000-8000-000000000001"


def said(uid: str, *blocks, usage=None, msg=None, parent=None) -> dict:
    """An assistant event as an interactive log has it (camelCase session keys)."""
    message = {"role": "assistant", "content": list(blocks)}
    if msg is not None:
        message["id"] = msg
    if usage is not None:
        message["usage"] = usage
    event = {"type": "assistant", "sessionId": SESSION, "uuid": uid, "message": message}
    if parent is not None:
        event["parent_tool_use_id"] = parent
    return event


def asked(text: str) -> dict:
    return {"type": "user", "sessionId": SESSION, "message": {"role": "user", "content": text}}


def answered(tid: str, text: str) -> dict:
    return {"type": "user", "sessionId": SESSION,
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": text}]}}


def use(tid: str, name: str, **given) -> dict:
    return {"type": "tool_use", "id": tid, "name": name, "input": given}


def usage(inp=0, out=0, read=0, made=0) -> dict:
    return {"input_tokens": inp, "output_tokens": out, "cache_read_input_tokens": read,
            "cache_creation_input_tokens": made}


RESPONSE = "**`lib/app.js`** — start(function)\n" + "x" * 300 + "\n**`lib/util.js`** — helper(function)\n" + "y" * 200


def _quirks():
    """Explore in both threads (the VERDICT counts the subagents' alone), Glob left out of
    Grep/Bash, a usage repeated on a request's two events (summed twice), a BOM-led line
    (left out of every figure), an integer-like tool name (JavaScript orders it first among
    equal counts), a float count."""
    main = [
        asked("how does the app start?"),
        said("a1", use("t1", EXPLORE, query="how does the app start"), msg="m1", usage=usage(1000, 10, 500, 200)),
        answered("t1", RESPONSE),
        said("a2", use("t2", "Glob", pattern="**/*.js"), msg="m2", usage=usage(1500, 20)),
        said("a3", use("t3", "Grep", pattern="start"), msg="m2", usage=usage(1500, 20)),
        answered("t2", "lib/app.js"), answered("t3", "lib/app.js:1"),
        said("a4", use("t4", "Task", subagent_type="Explore", description="look"), msg="m3", usage=usage(2000, 5)),
        said("a5", use("t5", "Bash", command="ls"), msg="m4", usage=usage(2100, 5.5)),
        said("a6", use("t6", "7"), msg="m5"),
        said("a7", use("t7", EXPLORE, query="again"), msg="m6"),
        answered("t7", RESPONSE),
        "\ufeff" + json.dumps(said("a8", use("t8", "Read", file_path="/r/lib/app.js"), msg="m7", usage=usage(9000, 9000))),
        said("a9", {"type": "text", "text": "It starts in `lib/app.js` via start()."}, msg="m8", usage=usage(2500, 40)),
    ]
    agent = [
        said("b1", use("s1", EXPLORE, query="start"), msg="n1", usage=usage(300, 3, 100)),
        answered("s1", RESPONSE),
        said("b2", use("s2", "Read", file_path="/r/lib/util.js"), msg="n2", usage=usage(400, 4)),
        said("b3", {"type": "text", "text": "util.js"}, msg="n3"),
    ]
    bare = [said("c1", use("u1", "Bash", command="cat lib/app.js"), msg="o1", usage=usage(50, 1))]
    return main, {"agent-a1": (agent, {"toolUseId": "t4"}), "agent-b2": (bare, None)}


def _plain():
    """No subagents, no usage: every tally of one, tokens 0.0k."""
    main = [asked("hi"), said("a1", {"type": "text", "text": "hello"}, msg="m1")]
    return main, {}


CASES = {"quirks": _quirks, "plain": _plain}


def _write(path: Path, rows) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")


def write_session(folder: Path, name: str) -> str:
    main, agents = CASES[name]()
    home = folder / name
    home.mkdir(parents=True)
    log = home / f"{SESSION}.jsonl"
    _write(log, main)
    if agents:
        subs = home / SESSION / "subagents"
        subs.mkdir(parents=True)
        for stem, (rows, meta) in agents.items():
            _write(subs / f"{stem}.jsonl", rows)
            if meta is not None:
                (subs / f"{stem}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return str(log)
