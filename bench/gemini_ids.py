"""Gemini sessions in linear time (issue 32 item 3): ids written with JSON escapes, and rewinds.

    python bench/gemini_ids.py [--messages N]

Two hostile inputs, each read at N and 4N messages: a session document whose
ids are written with escapes (`"\\u006d1"`, as `json.dump` with ensure_ascii
writes a non-ASCII id; the reader used to search the document per id), and a
session log with a `$rewindTo` record after every message (it used to copy
and search the id list per record). Prints the CPU time (`time.process_time`,
never wall-clock) of each and the ratio 4N/N, which is at most 6 (4 for
linear time; quadratic would be 16). Exit status 1 if a ratio is above 6.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from citeledger.readers.gemini import GeminiReader

HEAD = {"sessionId": "s-1", "projectHash": "h", "startTime": "t", "lastUpdated": "t"}


def escaped_document(folder: Path, n: int) -> Path:
    messages = [{"id": f"m{i}", "type": "user" if i % 2 == 0 else "gemini", "content": f"text {i}"} for i in range(n)]
    body = json.dumps(dict(HEAD, messages=messages), indent=2)
    body = body.replace('"id": "m', '"id": "\\u006d')  # every id escaped
    path = folder / f"session-2026-01-01T00-00-doc{n}.json"
    path.write_text(body, encoding="ascii")
    return path


def rewinding_log(folder: Path, n: int) -> Path:
    rows = [HEAD]
    for i in range(n):
        rows.append({"id": f"m{i}", "type": "user" if i % 2 == 0 else "gemini", "content": f"text {i}"})
        rows.append({"$rewindTo": f"m{i + 1}"})  # an id not yet written: nothing to cut, a whole search before
    path = folder / f"session-2026-01-01T00-00-log{n}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def cpu(path: Path) -> float:
    start = time.process_time()
    GeminiReader().read([str(path)])
    return time.process_time() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    n = parser.parse_args(argv).messages
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, make in (("escaped ids", escaped_document), ("rewinds", rewinding_log)):
            small, large = cpu(make(folder, n)), cpu(make(folder, 4 * n))
            ratio = large / max(small, 1e-9)
            worst = max(worst, ratio)
            print(f"{name}: {n:,} messages {small:.3f} s CPU, {4 * n:,} messages {large:.3f} s CPU, ratio {ratio:.2f}")
    return 1 if worst > 6 else 0


if __name__ == "__main__":
    sys.exit(main())
