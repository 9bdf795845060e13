"""The README's score blocks are what the command above each prints.

Each `    .venv/bin/citeledger score ...` line in README.md is followed by a
fenced block; running the command must print that block: the whole output
for the first (allocation) one, the sufficiency block for `--sufficiency`;
for `compare ... --sufficiency`, its pooled sufficiency block.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from citeledger.cli import main

REPO = Path(__file__).resolve().parent.parent
COMMAND = re.compile(r"^    (?:.*&& )?\.venv/bin/citeledger (score [^\n]*)\n\n```\n(.*?)```\n", re.M | re.S)


def test_readme_score_blocks_are_the_commands_output(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    found = COMMAND.findall((REPO / "README.md").read_text(encoding="utf-8"))
    assert [c.split()[1] for c, _ in found[:2]] == ["tests/fixtures/real/stream/express-sendfile-2calls.jsonl",
                                                    "--sufficiency"]
    for command, block in found:
        main(shlex.split(command))
        out = capsys.readouterr().out
        if "--sufficiency" in command:
            out = out[out.index("Explore sufficiency"):]
        assert out == block, command


POOLED = re.compile(r"^    \.venv/bin/citeledger (compare [^\n]*--sufficiency[^\n]*)\n\n```\n(.*?)```\n", re.M | re.S)


def test_readme_pooled_sufficiency_block_is_what_compare_prints(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    found = POOLED.findall((REPO / "README.md").read_text(encoding="utf-8"))
    assert [shlex.split(c)[1:5] for c, _ in found] == [["tests/fixtures/pass", "--arms", "baseline", "new"]]
    for command, block in found:
        main(shlex.split(command))
        out = capsys.readouterr().out
        start = out.index("Explore sufficiency — what the agent did NEXT, pooled")
        assert out[start:out.index("\n\n", start) + 1] == block, command
        assert block.count("answered calls") == 4  # three groups and (all)
