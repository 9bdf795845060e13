"""The floor a sweep is measured against: read every transcript (.jsonl) under DIR and
JSON-decode every line with DECODER, nothing else (one process).

    python bench/floor.py DECODER DIR
"""

import os
import sys


def decoder(name: str):
    if name == "orjson":
        import orjson

        return orjson.loads, orjson.JSONDecodeError
    if name == "msgspec":
        import msgspec

        return msgspec.json.decode, msgspec.DecodeError
    if name == "simdjson":
        import simdjson

        parser = simdjson.Parser()
        return (lambda b: parser.parse(b)), ValueError
    if name == "ujson":
        import ujson

        return ujson.loads, ValueError
    import json

    return json.loads, ValueError


def floor(name: str, root: str) -> tuple[int, int]:
    loads, error = decoder(name)
    files = lines = 0
    for dirpath, dirnames, filenames in os.walk(root):
        # The transcripts only, as bench/reference.mjs reads them: not the
        # harness's explore-*.jsonl sidecars nor its t-*/ tree copies.
        harness = any(f.startswith("run-") and f.endswith(".jsonl") for f in filenames)
        dirnames[:] = sorted(d for d in dirnames if d != "node_modules" and not (harness and d.startswith("t-")))
        for f in filenames:
            if not f.endswith(".jsonl") or (f.startswith("explore-")):
                continue
            with open(os.path.join(dirpath, f), "rb") as fh:
                data = fh.read()
            files += 1
            for line in data.split(b"\n"):
                if line:
                    lines += 1
                    try:
                        loads(line)
                    except error:
                        pass
    return files, lines


if __name__ == "__main__":
    print(*floor(sys.argv[1], sys.argv[2]))
