"""Print the docs/line-level.md table: file-level vs line-level efficiency on the real fixtures.

    .venv/bin/python docs/make_line_table.py

Every session under tests/fixtures/real/ (stream, interactive) and the Codex
fixture, scored under `default`, under `lines`, and under `lines` without the
quote channel (to show what quoting adds).
"""

from __future__ import annotations

import glob
import os
import tempfile
from pathlib import Path

from citeledger.core.accountant import score
from citeledger.infra.jsstr import percent
from citeledger.core.plugins import readers
from citeledger.rules.loader import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "fixtures" / "real"
NO_QUOTE = "extends: lines\nname: lines-no-quote\nchannels:\n  rank: [path, symbol, line_range]\n"


def sessions():
    """(name, reader, files) for every fixture session, in a stable order."""
    for first in sorted(glob.glob(str(REAL / "stream" / "*.jsonl"))):
        if ".t" in Path(first).name.removesuffix(".jsonl")[-3:]:
            continue  # a later segment; read with its first
        files = [first] + sorted(glob.glob(first.removesuffix(".jsonl") + ".t*.jsonl"))
        yield f"stream/{Path(first).stem}", "claude-stream", files
    for project in sorted(glob.glob(str(REAL / "interactive" / "*"))):
        yield f"interactive/{Path(project).name}", "claude-interactive", [project]
    for rollout in sorted(glob.glob(str(ROOT / "tests" / "fixtures" / "codex" / "rollout-*.jsonl"))):
        yield "codex/" + Path(rollout).name[:29] + "…", "codex", [rollout]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "lines-no-quote.yaml")
        Path(path).write_text(NO_QUOTE)
        rulesets = {name: load_ruleset(name) for name in ("default", "lines")}
        rulesets["no-quote"] = load_ruleset(path)
    known = readers()
    print("| session | file-level (default) | ladder: path / +symbol / +line_range / +quote | line-level | pinned lines only | quote adds, file-level | quote adds, line-level |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, reader, files in sessions():
        out = {}
        for key, ruleset in rulesets.items():
            transcript = known[reader]().read(files, ruleset.read_options())
            out[key] = score(transcript, ruleset)
        d, l, nq = out["default"], out["lines"], out["no-quote"]
        if not d.calls:
            print(f"| {name} | no explore calls | | | | | |")
            continue
        print(
            f"| {name} | {percent(d.efficiency)} | {' / '.join(percent(e) for _, e in l.ladder)} | {percent(l.line_efficiency)}"
            f" | {percent(l.line_pinned_efficiency)} | {percent(l.efficiency - nq.efficiency)}"
            f" | {l.line_pinned - nq.line_pinned:,} chars |"
        )


if __name__ == "__main__":
    main()
