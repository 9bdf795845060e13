"""How the sweep page scales: bytes, render time and headless-chromium load time.

Makes N synthetic session records (each with 1-4 calls and 5-30 files, paths
of realistic length), renders the sweep page from them exactly as `sweep
--html` does, and loads it in chromium (tests/browser.py) to time the load
event. Prints the figures; asserts nothing (no timed assertions in tests).

    .venv/bin/python bench/sweep_page.py              # 5,000 sessions
    .venv/bin/python bench/sweep_page.py --sessions 500 --sessions 5000
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from browser import Browser  # noqa: E402

from citeledger.report.html import sweep_page, sweep_session  # noqa: E402
from citeledger.report.tables import SliceTable  # noqa: E402


def session_record(i: int, rng: random.Random) -> dict:
    calls = [rng.random() for _ in range(rng.randint(1, 4))]
    files = []
    for k in range(rng.randint(5, 30)):
        chars = rng.randint(200, 9000)
        files.append([f"packages/module-{i % 97}/src/lib/part{k}/file_{k}.ts", chars,
                      rng.choice(["path", "symbol", None, None])])
    files.sort(key=lambda f: -f[1])
    envelope = sum(f[1] for f in files)
    used = sum(f[1] for f in files if f[2])
    status = "scored" if rng.random() > 0.05 else "no-answer"
    return {
        "record": "session", "session": f"q{i % 50}/run-{i}.jsonl", "group": f"q{i % 50}", "root": "corpus",
        "reader": "claude-stream", "turns": 1 + (i % 7 == 0), "ruleset": "default", "status": status,
        "reason": None if status == "scored" else "no final answer text",
        "envelope": envelope, "used": used, "used_path_only": used // 2, "efficiency": used / envelope,
        "path_only": used / 2 / envelope, "calls": len(calls), "call_efficiencies": calls,
        "files_returned": len(files), "files_used": sum(1 for f in files if f[2]), "warnings": 0,
        "inputs": [f"corpus/q{i % 50}/run-{i}.jsonl"], "files": files,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, action="append", help="sessions in the sweep (repeatable)")
    args = parser.parse_args()
    rng = random.Random(0)
    browser = Browser()
    try:
        for n in args.sessions or [5000]:
            rows = [session_record(i, rng) for i in range(n)]
            table = SliceTable("default")
            for r in rows:
                table.add(r)
            header = {"record": "sweep", "paths": ["corpus"], "rulesets": ["default"], "sessions": n,
                      "single_question": sum(r["turns"] <= 1 for r in rows),
                      "multi_turn": sum(r["turns"] > 1 for r in rows)}
            unscored = [{k: r[k] for k in ("session", "ruleset", "status", "reason")} for r in rows if r["status"] != "scored"]
            t0 = time.perf_counter()
            page = sweep_page(header, [table.rows()], [sweep_session(r) for r in rows], unscored, [])
            render = time.perf_counter() - t0
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "sweep.html"
                path.write_text(page, encoding="utf-8")
                t0 = time.perf_counter()
                tab = browser.open(path)
                load = time.perf_counter() - t0
                problems = tab.problems()
                tab.close()
            print(f"{n:>6} sessions: page {len(page.encode()) / 1e6:6.2f} MB, render {render:5.2f} s, "
                  f"chromium load {load:5.2f} s, console problems {len(problems)}")
    finally:
        browser.close()


if __name__ == "__main__":
    main()
