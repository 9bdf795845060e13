"""What a long answer costs: CPU and peak RSS of `score` on one session whose answer is N MB.

Builds a session of one explore call (ten files) whose final answer is N MB of prose that
cites paths, names symbols in backticks and quotes fenced code (what every channel reads),
runs `citeledger score` (and `--json`) on it in a fresh process and reads the peak RSS from the
kernel (os.wait4's ru_maxrss). Prints a Markdown table and the bytes of memory per answer byte
above a small answer's baseline; with --bound MB, exits 1 when a run's peak passes it.

    .venv/bin/python bench/answer_memory.py                    # 1 MB and 50 MB answers, bound 1,024 MB
    .venv/bin/python bench/answer_memory.py --mb 10 --mb 50 --wide --dense
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from builders import events, response, section, write_jsonl  # noqa: E402

PARAGRAPH = (
    "The handler in lib/c{n}/f{k}.js calls `render{k}` before `send`, so a change to lib/router/r{n}.js "
    "reaches it only through `next()`.\n\n```js\nfunction render{k}(req, res) {{ return res.send(req.body); }}\n```\n\n"
)


# The densest answer for the channels: a code span, a path and a dotted name every 20 characters.
DENSE = "`a` lib/a.js a.b "


def answer(size: int, wide: bool = False, dense: bool = False) -> str:
    """Prose of about `size` characters, citing and quoting as an agent's answer does; `wide`: a
    character outside the BMP in each paragraph (Python then holds the text at 4 bytes a character);
    `dense`: DENSE over and over (a match every few characters)."""
    if dense:
        return (DENSE * (size // len(DENSE) + 1))[:size]
    parts, total, n = [], 0, 0
    while total < size:
        part = PARAGRAPH.format(n=n % 1000, k=n % 10) + ("\U0001f642\n" if wide else "")
        parts.append(part)
        total += len(part)
        n += 1
    return "".join(parts)[:size]


def session(path: Path, size: int, kind: str = "") -> Path:
    text = response(*(section(f"lib/c0/f{i}.js", body=f"function render{i}() {{}}\n" * 20) for i in range(10)))
    return write_jsonl(path, events([text], answer(size, kind == "wide", kind == "dense")))


def measure(args: list[str]) -> tuple[float, int]:
    """CPU seconds and peak RSS (bytes) of one command in its own process."""
    proc = subprocess.Popen([sys.executable, "-m", "citeledger.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"citeledger {' '.join(args)}: exit {os.waitstatus_to_exitcode(status)}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, action="append", help="answer sizes in MB (default 1 and 50)")
    parser.add_argument("--bound", type=int, default=1024, help="peak RSS allowed, MB (default 1,024)")
    parser.add_argument("--wide", action="store_true", help="also answers with a character outside the BMP")
    parser.add_argument("--dense", action="store_true", help="also answers of a match every few characters")
    opts = parser.parse_args()
    sizes = opts.mb or [1, 50]
    over = False
    with tempfile.TemporaryDirectory() as tmp:
        base_cpu, base_rss = measure(["score", str(session(Path(tmp, "small.jsonl"), 10_000))])
        print(f"baseline (a 10 KB answer): {base_cpu:.2f} s CPU, {base_rss / 2**20:.0f} MB peak RSS\n")
        print("| answer | `score`: CPU, peak RSS | `score --json`: CPU, peak RSS | bytes of memory per answer byte |")
        print("|---|---|---|---|")
        kinds = ["", *(["wide"] if opts.wide else []), *(["dense"] if opts.dense else [])]
        for mb, kind in [(mb, kind) for mb in sizes for kind in kinds]:
            run = session(Path(tmp, f"a{mb}{kind}.jsonl"), mb << 20, kind)
            text_cpu, text_rss = measure(["score", str(run)])
            json_cpu, json_rss = measure(["score", "--json", str(run)])
            per_byte = (max(text_rss, json_rss) - base_rss) / (mb << 20)
            print(f"| {mb} MB{f' ({kind})' if kind else ''} | {text_cpu:.1f} s, {text_rss / 2**20:,.0f} MB | "
                  f"{json_cpu:.1f} s, {json_rss / 2**20:,.0f} MB | {per_byte:.1f} |")
            over |= max(text_rss, json_rss) > opts.bound << 20
    if over:
        print(f"\nover the bound of {opts.bound:,} MB")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
