"""Regenerate every marked output block in README.md and docs/*.md, in place.

    .venv/bin/python docs/make_outputs.py           # rewrite the blocks
    .venv/bin/python docs/make_outputs.py --check   # exit 1 naming each block that differs

A block is the text between a marker and `<!-- /output -->`:

    <!-- output: citeledger explain tests/fixtures/real/stream/x.jsonl | head 6 | indent 4 | prompt -->
    ...
    <!-- /output -->

The marker names the command that produced the block, then filters and a
layout, each after a `|`:

- `from TEXT` / `to TEXT`: start at the first line holding TEXT / end at the next one holding TEXT
- `head N`, `tail N`: the first / last N lines (both: first, `...`, last)
- `keep TEXT ...`: only lines holding one of the TEXTs, `...` where lines were left out
- `stderr`: the command's stderr instead of its stdout
- `cwd DIR`: run in DIR (relative to the repository), for a command that names a file as a user would
- `fence [LANG]` (the default), `indent N` (N spaces), `raw` (as printed, for a Markdown table)
- `prompt`: a first line `$ COMMAND`

`citeledger ...` runs the installed CLI, `python SCRIPT ...` a script with this
interpreter. Each runs in a scratch directory whose `tests`, `rulesets` and
`examples` link to the repository's, so the paths it prints are the README's
and anything it writes (`--out out/ab`) lands in the scratch directory.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^([ \t]*)<!-- output: (.*?) -->\n(.*?)^[ \t]*<!-- /output -->$", re.M | re.S)
LINKED = ("tests", "rulesets", "examples", "docs", "bench")
# The real transcripts beside the repository (docs/your-tool.md reads them in place); a block
# whose command names them is left as it is where they are absent.
SHARED_PATH = "../shared/transcripts"
SHARED = REPO.parent / "shared"


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _contains(lines, text, start=0) -> int:
    for i in range(start, len(lines)):
        if text in lines[i]:
            return i
    raise ValueError(f"no line holds {text!r}")


def _cut(lines: list[str], steps: list[list[str]]) -> list[str]:
    for op, *args in steps:
        if op == "from":
            lines = lines[_contains(lines, args[0]):]
        elif op == "to":
            lines = lines[: _contains(lines, args[0]) + 1]
        elif op == "keep":
            kept, gap = [], False
            for line in lines:
                if any(a in line for a in args):
                    if gap:
                        kept.append("...")
                    kept.append(line)
                    gap = False
                else:
                    gap = True
            lines = kept + (["..."] if gap else [])
    heads = [int(a[0]) for op, *a in steps if op == "head"]
    tails = [int(a[0]) for op, *a in steps if op == "tail"]
    if heads and tails and heads[0] + tails[0] < len(lines):
        lines = lines[: heads[0]] + ["..."] + lines[-tails[0]:]
    elif heads and len(lines) > heads[0]:
        lines = lines[: heads[0]]
    elif tails:
        lines = lines[-tails[0]:]
    return lines


def run(command: str, cwd: Path, launch=subprocess.run) -> tuple[str, str]:
    """(stdout, stderr) of a marker's command; `launch` runs it as subprocess.run would (the
    docs test passes one that forks from a warm interpreter, tests/forked_python.py)."""
    argv = shlex.split(command)
    if argv[0] == "citeledger":
        argv = [sys.executable, "-m", "citeledger.cli", *argv[1:]]
    elif argv[0] == "python":
        argv = [sys.executable, str(REPO / argv[1]), *argv[2:]]
    else:
        raise ValueError(f"not a citeledger or python command: {command}")
    done = launch(argv, cwd=cwd, capture_output=True, text=True, encoding="utf-8",
                  env={**os.environ, "COLUMNS": "100"})
    return done.stdout, done.stderr


def render(spec: str, sandbox: Path, launch=subprocess.run) -> str:
    command, *parts = [p.strip() for p in spec.split(" | ")]
    steps = [shlex.split(p) for p in parts]
    where = next((sandbox / s[1] for s in steps if s[0] == "cwd"), sandbox)
    out, err = run(command, where, launch)
    text = err if ["stderr"] in steps else out
    lines = _cut(text.rstrip("\n").split("\n"), steps)
    if ["prompt"] in steps:
        lines = [f"$ {command}"] + lines
    layout = next((s for s in steps if s[0] in ("fence", "indent", "raw")), ["fence"])
    if layout[0] == "raw":
        return "\n".join(lines) + "\n"
    if layout[0] == "indent":
        pad = " " * int(layout[1])
        return "\n".join((pad + line).rstrip() for line in lines) + "\n"
    return "```" + (layout[1] if len(layout) > 1 else "") + "\n" + "\n".join(lines) + "\n```\n"


def regenerate(check: bool, launch=subprocess.run) -> list[str]:
    """Rewrite (or, with `check`, compare) every block; the names of the blocks that differed."""
    differ = []
    with tempfile.TemporaryDirectory(prefix="citeledger-docs-") as tmp:
        sandbox = Path(tmp) / "repo"  # beside it `shared`: ../shared/transcripts reads as from the repository
        sandbox.mkdir()
        for name in LINKED:
            (sandbox / name).symlink_to(REPO / name)
        if SHARED.is_dir():
            (Path(tmp) / "shared").symlink_to(SHARED)
        for doc in documents():
            text = doc.read_text(encoding="utf-8")

            def fill(m: re.Match) -> str:
                indent, spec, old = m.group(1), m.group(2), m.group(3)
                if SHARED_PATH in spec and not SHARED.is_dir():  # the real transcripts are not here: as it is
                    return m.group(0)
                new = render(spec, sandbox, launch)
                if new != old:
                    differ.append(f"{doc.relative_to(REPO)}: {spec}")
                return f"{indent}<!-- output: {spec} -->\n{new}{indent}<!-- /output -->"

            updated = MARKER.sub(fill, text)
            if not check and updated != text:
                doc.write_text(updated, encoding="utf-8")
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block differs")
    args = parser.parse_args()
    differ = regenerate(args.check)
    for name in differ:
        print(("differs: " if args.check else "rewrote: ") + name)
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
