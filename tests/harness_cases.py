"""Small stream-json runs for the harness metrics (occupancy, run basics), each
built so its expected figures can be worked out by hand.

Every case is a list of segments, each a list of events (dicts) or raw lines
(str); `write_case` writes one as run-<name>.jsonl (+ .t2, ...).
"""

from __future__ import annotations

import json
from pathlib import Path

EXPLORE = "mcp__codegraph__codegraph_explore"


def request(prompt: int, msg: str, *blocks, out: int = 2, usage: dict | None = None) -> list[dict]:
    """One request as Claude Code writes it: one assistant event per content block, same id and usage."""
    u = usage if usage is not None else {
        "input_tokens": prompt, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": out}
    return [{"type": "assistant", "message": {"id": msg, "content": [b], "usage": u}} for b in blocks]


def use(tid: str, name: str, **given) -> dict:
    return {"type": "tool_use", "id": tid, "name": name, "input": given}


def result(tid: str, chars: int = 0, text: str | None = None, error: bool = False) -> dict:
    item = {"type": "tool_result", "tool_use_id": tid, "content": [{"type": "text", "text": text if text is not None else "x" * chars}]}
    if error:
        item["is_error"] = True
    return {"type": "user", "message": {"content": [item]}}


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def done(subtype: str = "success", ms: int = 1000, cost: float = 0.1, answer: str = "done") -> dict:
    return {"type": "result", "subtype": subtype, "duration_ms": ms, "total_cost_usd": cost, "usage": {}, "result": answer}


def init(*tools: str) -> dict:
    return {"type": "system", "subtype": "init", "tools": list(tools)}


COMPACT = {"type": "system", "subtype": "compact_boundary"}


def _basic():
    # 2.5 chars/token: 10,000 explore chars over a 4,000-token gap, 5,000 Read chars over 2,000.
    return [[
        init(EXPLORE, "mcp__codegraph__codegraph_node", "Read"),
        *request(10000, "m1", use("t1", EXPLORE, query="how does it start")), result("t1", 10000),
        *request(14000, "m2", use("t2", "Read", file_path="/repo/lib/app.js")), result("t2", 5000),
        *request(16000, "m3", text("done")), done(),
    ]]


def _dupe():
    # thinking + tool_use: two events, one id, one usage; counted per event it would be 5 requests.
    return [[
        *request(10000, "m1", {"type": "thinking", "thinking": ""}, use("t1", EXPLORE, query="q")), result("t1", 10000),
        *request(14000, "m2", {"type": "thinking", "thinking": ""}, use("t2", "Read", file_path="a.js")), result("t2", 5000),
        *request(16000, "m3", text("done")), done(),
    ]]


def _compaction():
    # The boundary empties what was resident: only the last result (2,000 tokens at 2.5) is left.
    return [[
        *request(10000, "m1", use("t1", EXPLORE, query="q1")), result("t1", 10000),
        *request(14000, "m2", use("t2", EXPLORE, query="q2")), COMPACT, result("t2", 5000),
        *request(8000, "m3", text("done")), done(),
    ]]


def _micro():
    # +500 tokens for 4,000 tokens of Read: 3,500 shed, oldest (explore) first.
    return [[
        *request(10000, "m1", use("t1", EXPLORE, query="q")), result("t1", 10000),
        *request(14000, "m2", use("t2", "Read", file_path="b.js")), result("t2", 10000),
        *request(14500, "m3", text("done")), done(),
    ]]


def _stitched():
    return [
        [*request(10000, "m1", use("t1", EXPLORE, query="q")), result("t1", 10000),
         *request(14000, "m2", text("answer one")), done()],
        [*request(14600, "m3", text("answer two, from what is already here")), done(ms=2500)],
    ]


def _shedding():
    # Three clean gaps at 2.0, 2.0 and 5.0 chars/token: the lower median is 2.0 and
    # the 5.0 gap (shedding) is dropped from the pooled ratio.
    return [[
        *request(10000, "m1", use("t1", EXPLORE, query="a")), result("t1", 4000),
        *request(12000, "m2", use("t2", "Grep", pattern="x")), result("t2", 4000),
        *request(14000, "m3", use("t3", "Bash", command="cat a.js")), result("t3", 10000),
        *request(16000, "m4", text("done")), done(),
    ]]


def _fallback_growing():
    # No gap is clean (each has 500 characters or fewer): every growing gap, all characters.
    return [[
        *request(1000, "m1", use("t1", "Glob", pattern="*.js")), result("t1", 300),
        *request(1200, "m2", use("t2", "Read", file_path="c.js")), result("t2", 400),
        *request(1500, "m3", text("done")), done(),
    ]]


def _fallback_none():
    # One request: no gap at all, so the 3.0 fallback, flagged.
    return [[*request(5000, "m1", text("nothing to do")), done()]]


def _dispersion():
    # Two gaps that are all tool result: 3,000 chars over 1,000 and 3,300 over 1,000 tokens.
    # Pooled 6,300/2,000 = 3.15; errors |952-1000|/1000 and |1048-1000|/1000, lower median 4.8%.
    return [[
        *request(8000, "m1", use("t1", EXPLORE, query="a")), result("t1", 3000),
        *request(9000, "m2", use("t2", EXPLORE, query="b")), result("t2", 3300),
        *request(10000, "m3", text("ok")), done(),
    ]]


def _race():
    return [[
        init("Read", "Bash"),
        *request(3000, "m1", use("t1", EXPLORE, query="where")),
        result("t1", text="<tool_use_error>Error: No such tool available: mcp__codegraph__codegraph_explore</tool_use_error>", error=True),
        *request(3100, "m2", use("t2", "Grep", pattern="listen")), result("t2", 900),
        *request(3500, "m3", text("found it")), done(),
    ]]


def _cli(error: bool):
    return [[
        init(),
        *request(3000, "m1", use("t1", "Bash", command="cd /repo && FOO=1 ./node_modules/.bin/codegraph explore 'listen'")),
        result("t1", 800, error=error),
        *request(3300, "m2", use("t2", "Bash", command="grep -rn codegraph src/ | head")), result("t2", 100),
        *request(3400, "m3", use("t3", "Bash", command="ls .codegraph; which codegraph")), result("t3", 50),
        *request(3500, "m4", use("t4", "Bash", command="echo $(codegraph status)")), result("t4", 40, error=True),
        *request(3600, "m5", text("answer")), done(),
    ]]


def _details():
    # Each detail rule once; a ToolSearch call; no init event; an error result.
    return [[
        *request(2000, "m1", use("t1", "Task", subagent_type="Explore", description="Find where the router is built, the long way round"),
                 use("t2", "ToolSearch", query="select:Read"),
                 use("t3", "mcp__codegraph__codegraph_node", symbol="createApp"),
                 use("t4", "mcp__codegraph__codegraph_explore", task="x" * 80),
                 use("t5", "Read", file_path="/a/b/c/deep.ts"),
                 use("t6", "Bash", command="find . -name '*.ts' -not -path './node_modules/*' | xargs wc -l | sort -n"),
                 use("t7", "Edit", file_path="x.ts", old_string="a", new_string="b", timeout=1.5e3)),
        result("t1", 700), result("t2", 20), result("t3", 600), result("t4", 900), result("t5", 1200),
        result("t6", 300), result("t7", 10),
        *request(5000, "m2", text("partial")), done(subtype="error_max_turns", ms=61499, cost=1.23456),
    ]]


def _unicode():
    # Astral characters count two UTF-16 units, in results and in the 50-character command cut,
    # which here falls inside the second emoji (6 + 41 + 2 units, then half of one).
    return [[
        *request(4000, "m1", use("t1", "Bash", command="echo '" + "é" * 41 + "😀😀😀😀😀'")),
        result("t1", text="😀" * 400 + "ü" * 200),
        *request(4800, "m2", {"type": "redacted_thinking", "data": "abc"}, text("fertig ✓")),
        {"type": "user", "message": {"content": "a follow-up prompt"}},
        {"type": "user", "message": {"content": [{"type": "text", "text": "more"}, {"type": "image", "source": {"type": "base64", "data": "QUJD"}}]}},
        *request(5200, "m3", text("ok")), done(),
    ]]


def _no_result():
    # A killed run: no result event, a partial last line.
    return [[
        init(EXPLORE),
        *request(9000, "m1", use("t1", EXPLORE, query="q")), result("t1", 6000),
        *request(11500, "m2", text("thinking about it")),
        '{"type":"assistant","message":{"id":"m3","content":[{"type":"te',
    ]]


def _segments_three():
    return [
        [init(EXPLORE), *request(12000, "m1", use("t1", EXPLORE, query="one")), result("t1", 7000),
         *request(15000, "m2", text("a1")), done(ms=1500, cost=0.05)],
        [*request(15500, "m3", use("t2", "Read", file_path="x/y.py")), result("t2", 2400),
         *request(16600, "m4", text("a2")), done(subtype="error_during_execution", ms=700, cost=0.01)],
        [*request(17000, "m5", use("t3", "Grep", pattern="z")), result("t3", 100), *request(17100, "m6", text("a3")), done()],
    ]


def _usage_mix():
    # Cache reads and writes count in the prompt; a usage-less request counts 0; an event without an id is no request.
    return [[
        *request(0, "m1", use("t1", EXPLORE, query="q"), usage={
            "input_tokens": 3, "cache_read_input_tokens": 12000, "cache_creation_input_tokens": 900, "output_tokens": 150}),
        result("t1", 5200),
        {"type": "assistant", "message": {"content": [text("no id here")]}},
        *request(0, "m2", text("x"), usage={"input_tokens": 5, "cache_read_input_tokens": 12900, "cache_creation_input_tokens": 2100, "output_tokens": 40}),
        {"type": "assistant", "message": {"id": "m3", "content": [text("no usage")]}},
        done(),
    ]]


def _bom_resumed(reused: bool = False):
    # A resumed segment whose first line, the explore call, begins with a UTF-8 byte order mark:
    # the harness's JSON.parse refuses that line, so its result (6,000 chars) is an unknown id's,
    # "other tools"; with `reused`, the id is segment 1's Read call's, whose name it keeps ("read").
    second = "t0" if reused else "t2"
    called = request(15000, "m3", use(second, EXPLORE, query="two"))[0]
    return [
        [init(EXPLORE, "Read"), *request(10000, "m1", use("t1", EXPLORE, query="one")), result("t1", 8000),
         *request(11000, "m0", use("t0", "Read", file_path="/r/a.js")), result("t0", 500),
         *request(13000, "m2", text("a1")), done()],
        ["\ufeff" + json.dumps(called), result(second, 6000), *request(18000, "m4", text("a2")), done()],
    ]


CASES = {
    "basic": _basic, "dupe": _dupe, "compaction": _compaction, "micro": _micro, "stitched": _stitched,
    "shedding": _shedding, "fallback-growing": _fallback_growing, "fallback-none": _fallback_none,
    "dispersion": _dispersion, "race": _race, "cli-returned": lambda: _cli(False), "cli-blocked": lambda: _cli(True),
    "details": _details, "unicode": _unicode, "no-result": _no_result, "three-segments": _segments_three,
    "usage-mix": _usage_mix, "bom-resumed": _bom_resumed, "bom-reused-id": lambda: _bom_resumed(True),
}


def write_case(folder: Path, name: str) -> list[str]:
    """Write case `name` as run-<name>.jsonl [+ .t2.jsonl ...]; its files in order."""
    files = []
    for i, events in enumerate(CASES[name](), 1):
        path = folder / (f"run-{name}.jsonl" if i == 1 else f"run-{name}.t{i}.jsonl")
        path.write_text("".join((e if isinstance(e, str) else json.dumps(e, ensure_ascii=False)) + "\n" for e in events), encoding="utf-8")
        files.append(str(path))
    return files


if __name__ == "__main__":  # write every case to a folder (the local check against codegraph's script)
    import sys

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        print(" ".join(write_case(out, case)))
