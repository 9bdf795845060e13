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


EM_DASH_HEADER = "`** \u2014 ".encode()  # a header's path closes, its suffix opens


def tag(raw: bytes, session: int, k: int) -> bytes:
    """Make one line's texts unique to (session, copy k): no two texts of the
    corpus are equal, so no cache of repeated work can help (see below).

    The response title, every section header's suffix (a bare word first), the
    comment closing every code block, and the answer (result and assistant
    texts) all carry the tag. The header word is bare, of no defining kind, so
    it changes no verdict; the copies still differ in chars like real calls.
    """
    t = b"s%dk%d" % (session, k)
    raw = raw.replace(b"**Exploration: ", b"**Exploration: (" + t + b") ")
    raw = raw.replace(EM_DASH_HEADER, EM_DASH_HEADER + t + b", ")
    raw = raw.replace(b"\\n```\\n", b"\\n// " + t + b"\\n```\\n")
    raw = raw.replace(b'"result":"', b'"result":"(' + t + b') ')
    return raw.replace(b'"type":"text","text":"', b'"type":"text","text":"(' + t + b') ')


def amplify(lines: list[bytes], ids: set[str], r: int, session: int = 0) -> bytes:
    """Every line that names an explore id is written r times, the id made unique per copy.

    Each copy's texts are made distinct too (`tag`), as real repeated calls
    are: a benchmark of identical copies would measure the caches of repeated
    work, not the work.
    """
    out = []
    for raw in lines:
        hit = next((i for i in ids if f'"{i}"'.encode() in raw), None)
        out.append(tag(raw, session, 0))
        if hit is None:
            continue
        for k in range(1, r):
            copy = raw.replace(f'"{hit}"'.encode(), f'"{hit}_r{k}"'.encode())
            out.append(tag(copy, session, k))
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
            (folder / f"{name}.jsonl").write_bytes(b"\n".join(tag(x, count, 0) for x in log.read_bytes().split(b"\n")))
            shutil.copytree(interactive / log.stem, folder / name)
            for sub in (folder / name).rglob("*.jsonl"):
                sub.write_bytes(b"\n".join(tag(x, count, 1) for x in sub.read_bytes().split(b"\n")))
            written += (folder / f"{name}.jsonl").stat().st_size
        else:
            base, segments, ids = runs[count % len(runs)]
            r = rng.randint(2, 14)
            for n, lines in enumerate(segments, 1):
                suffix = "" if n == 1 else f".t{n}"
                data = amplify(lines, ids, r, count)
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
