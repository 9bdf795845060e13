"""Build a large benchmark corpus from the real fixtures (tests/fixtures/real).

Each generated session is one real transcript whose explore exchanges (the
tool_use and its tool_result: most of the bytes) are repeated r times with
fresh tool ids, r drawn from a seeded generator; the same answer then judges
r times more returned chars. The mix keeps every real shape: multi-segment
runs (flask-views + .t2), a killed run (a truncated last line), a run with no
explore call, a subagent run, and interactive logs with their subagents
folder. Sessions go 100 to a directory (q0000, q0001, ...), like one
directory per question.

    python bench/make_corpus.py OUT_DIR --sessions 5200 --min-bytes 1100000000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
from pathlib import Path

import orjson

REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
EXPLORE = "codegraph_explore"


def explore_ids(lines: list[bytes]) -> set[str]:
    ids = set()
    for raw in lines:
        try:
            event = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        content = (event.get("message") or {}).get("content") if isinstance(event, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use" and EXPLORE in str(block.get("name")):
                ids.add(block["id"])
    return ids


def amplify(lines: list[bytes], ids: set[str], r: int) -> bytes:
    """Every line that names an explore id is written r times, the id made unique per copy.

    Each copy's response text is made distinct too (its title, and a comment
    line closing every code block), as real repeated calls are: a benchmark of
    identical copies would measure the caches of repeated work, not the work.
    """
    out = []
    for raw in lines:
        hit = next((i for i in ids if f'"{i}"'.encode() in raw), None)
        if hit is None:
            out.append(raw)
            continue
        out.append(raw)
        for k in range(1, r):
            copy = raw.replace(f'"{hit}"'.encode(), f'"{hit}_r{k}"'.encode())
            copy = copy.replace(b"**Exploration: ", b"**Exploration: (repeat %d) " % k)
            copy = copy.replace(b"\\n```\\n", b"\\n// repeat %d\\n```\\n" % k)
            out.append(copy)
    return b"\n".join(out)


def templates():
    """(name, [segment lines...]) for every stream run, segments grouped."""
    stream = sorted((REAL / "stream").glob("*.jsonl"))
    runs: dict[str, list[Path]] = {}
    for p in stream:
        base = p.name.split(".t")[0].removesuffix(".jsonl")
        runs.setdefault(base, []).append(p)
    out = []
    for base, files in runs.items():
        files.sort(key=lambda p: (len(p.name), p.name))
        segments = [p.read_bytes().split(b"\n") for p in files]
        out.append((base, segments, set().union(*(explore_ids(s) for s in segments))))
    return out


def build(out: Path, sessions: int, min_bytes: int, seed: int = 1) -> tuple[int, int]:
    rng = random.Random(seed)
    runs = templates()
    interactive = next((REAL / "interactive").iterdir())
    log = next(interactive.glob("*.jsonl"))
    written = count = 0
    while count < sessions or written < min_bytes:
        folder = out / f"q{count // 100:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        if count % 50 == 49:  # one in fifty is an interactive project log with a subagent
            name = f"{count:06d}-{log.stem}"
            shutil.copy(log, folder / f"{name}.jsonl")
            shutil.copytree(interactive / log.stem, folder / name)
            written += (folder / f"{name}.jsonl").stat().st_size
        else:
            base, segments, ids = runs[count % len(runs)]
            r = rng.randint(2, 14)
            for n, lines in enumerate(segments, 1):
                suffix = "" if n == 1 else f".t{n}"
                data = amplify(lines, ids, r)
                (folder / f"run-{count:06d}-{base}{suffix}.jsonl").write_bytes(data)
                written += len(data)
        count += 1
    return count, written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--sessions", type=int, default=5200)
    ap.add_argument("--min-bytes", type=int, default=1_100_000_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    count, written = build(out, args.sessions, args.min_bytes, args.seed)
    print(f"{count} sessions, {written / 1e6:.1f} MB in {out}")


if __name__ == "__main__":
    main()
