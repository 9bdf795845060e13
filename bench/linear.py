"""Linear time on hostile answers: scoring time per MB of answer at 10 KB, 100 KB and 1 MB.

    python bench/linear.py [--repeat N] [--ruleset NAME ...]

Each answer opens with one run of letters a quarter of its size (quadratic
in re's version of the default path pattern), then repeats one hostile
block: another run of letters, a deep path, a bare basename,
code spans and an unclosed one, cited against a response of 20 sections.
Time is the best of --repeat runs of read + score in this process, less
the same session's time with an empty answer (the response's fixed cost),
so what is left is the answer's; the ratio is the largest time per MB over
the smallest, about 1 for linear time.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from citeledger.core import score
from citeledger.core.plugins import readers
from citeledger.rules.loader import load_ruleset

EXPLORE = "mcp__codegraph__codegraph_explore"
SIZES = (10_000, 100_000, 1_000_000)  # characters of answer (ASCII: bytes)
SECTIONS = 20  # small, so the fixed cost subtracted is small next to a 10 KB answer's


def block(i: int) -> str:
    return (
        "a" * 4000
        + f" see src/pkg{i % 50}/deep/" + "d/" * 40 + f"mod{i}.js and mod{i % SECTIONS}.js, "
        + f"`handler{i}` `run(function)` `unclosed " + "b" * 500 + "\n"
    )


def answer(size: int) -> str:
    """A quarter of the answer is one run of letters (the issue's 80,000-letter
    answer took 10 s on re), the rest hostile blocks."""
    out, i, n = ["a" * (size // 4) + "\n"], 0, size // 4 + 1
    while n < size:
        piece = block(i)
        out.append(piece)
        n += len(piece)
        i += 1
    return "".join(out)[:size]


def session(folder: Path, size: int) -> Path:
    sections = "".join(
        f"**`src/pkg{i % 50}/mod{i}.js`** — handler{i}(function)\n```js\n1\tfunction handler{i}() {{}}\n```\n"
        for i in range(SECTIONS)
    )
    text = "**Exploration: q**\n\n" + sections + "\n> Use these."
    rows = [
        {"type": "system", "subtype": "init", "tools": [EXPLORE]},
        {"type": "assistant", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": EXPLORE, "input": {"query": "q"}}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": text}]}]}},
        {"type": "result", "subtype": "success", "result": answer(size)},
    ]
    path = folder / f"answer-{size}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def best_time(path: Path, ruleset, repeat: int) -> float:
    reader = readers()["claude-stream"]()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        transcript = reader.read([str(path)], ruleset.read_options())
        score(transcript, ruleset)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--ruleset", nargs="+", default=["default", "corrected", "lines"])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {size: session(Path(tmp), size) for size in (0,) + SIZES}
        for name in args.ruleset:
            ruleset = load_ruleset(name)
            fixed = best_time(paths[0], ruleset, args.repeat)
            per_mb = {}
            for size in SIZES:
                elapsed = best_time(paths[size], ruleset, args.repeat) - fixed
                per_mb[size] = max(elapsed, 1e-9) / (size / 1e6)
                print(f"{name:10s} answer {size / 1000:>6,.0f} KB: {elapsed * 1000:8.2f} ms  ({per_mb[size]:6.3f} s/MB)")
            ratio = max(per_mb.values()) / min(per_mb.values())
            print(f"{name:10s} time per MB, largest / smallest: {ratio:.2f}")
    # For contrast, the default path pattern on Python's re (the engine before
    # RE2): 1 MB is left out, it takes minutes.
    pattern = re.compile(load_ruleset("default").options_for("path").with_directory.pattern, re.ASCII)
    per_mb = {}
    for size in SIZES[:2]:
        text = answer(size)
        start = time.perf_counter()
        sum(1 for _ in pattern.finditer(text))
        elapsed = time.perf_counter() - start
        per_mb[size] = elapsed / (size / 1e6)
        print(f"re (before) path pattern {size / 1000:>4,.0f} KB: {elapsed * 1000:8.2f} ms  ({per_mb[size]:6.3f} s/MB)")
    print(f"re (before) time per MB, 100 KB / 10 KB: {per_mb[SIZES[1]] / per_mb[SIZES[0]]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
