"""How the session page scales: the page's bytes and the peak RSS of `score --html`.

Builds the hostile sessions of issue 32 item 4 (one Glob result of N paths; N
explore calls of 10 files each), runs `citeledger score` on each with and
without `--html` in a fresh process and reads its peak RSS from the kernel
(os.wait4's ru_maxrss). Prints a Markdown table; asserts nothing.

    .venv/bin/python bench/session_page.py                 # 100,000 and 250,000 paths, 2,000 calls
    .venv/bin/python bench/session_page.py --paths 100000 --calls 0
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from builders import answer_to, events, response, section, use, write_jsonl  # noqa: E402


def glob_session(path: Path, count: int) -> Path:
    listing = "\n".join(f"/repo/src/pkg{i // 1000}/module_{i}.py" for i in range(count))
    return write_jsonl(path, [{"type": "system", "subtype": "init", "cwd": "/repo", "tools": ["Glob"]},
                              use("g1", "Glob", {"pattern": "**/*.py"}), answer_to("g1", listing),
                              {"type": "result", "subtype": "success", "result": "see src/pkg0/module_1.py"}])


def explore_session(path: Path, calls: int) -> Path:
    texts = [response(*(section(f"lib/c{c}/f{i}.js", body="x\n") for i in range(10))) for c in range(calls)]
    return write_jsonl(path, events(texts, "see lib/c1/f1.js"))


def measure(args: list[str]) -> tuple[float, int]:
    """CPU seconds and peak RSS (bytes) of one command in its own process."""
    proc = subprocess.Popen([sys.executable, "-m", "citeledger.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--paths", type=int, action="append")
    parser.add_argument("--calls", type=int, action="append")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(f"one Glob of {n:,} paths", glob_session(Path(tmp, f"g{n}.jsonl"), n))
                 for n in opts.paths or [100_000, 250_000] if n]
        cases += [(f"{n:,} explore calls of 10 files", explore_session(Path(tmp, f"c{n}.jsonl"), n))
                  for n in opts.calls or [2000] if n]
        print("| session | `score`: CPU, RSS | `score --html`: CPU, RSS | page |\n|---|---|---|---|")
        for name, run in cases:
            page = Path(tmp, "page.html")
            alone = measure(["score", "--ruleset", "retrieval", str(run)])
            html = measure(["score", "--ruleset", "retrieval", "--html", str(page), str(run)])
            print(f"| {name} | {alone[0]:.1f} s, {alone[1] / 1e6:,.0f} MB | {html[0]:.1f} s, {html[1] / 1e6:,.0f} MB "
                  f"| {page.stat().st_size / 1e3:,.0f} KB |")


if __name__ == "__main__":
    main()
