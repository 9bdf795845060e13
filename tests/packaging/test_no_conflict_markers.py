"""No merge left its conflict markers in a tracked file (a docstring or a doc page keeps them silently)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^(<{7} |={7}$|>{7} )", re.M)


def tracked() -> list[Path]:
    try:
        done = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / name for name in done.stdout.decode().split("\0") if name]


def markers_in(text: str) -> list[int]:
    return [text.count("\n", 0, m.start()) + 1 for m in MARKER.finditer(text)]


def test_no_tracked_text_file_holds_a_conflict_marker():
    found = []
    for path in tracked():
        if path.suffix not in (".py", ".md", ".yaml", ".toml", ".lark", ".mjs", ".txt", ".cfg", ".json") \
                or not path.is_file() or path.stat().st_size > 2 << 20:
            continue
        found += [f"{path.relative_to(REPO)}:{n}" for n in markers_in(path.read_text("utf-8", errors="replace"))]
    assert not found, found


def test_the_scan_sees_a_marker():
    assert markers_in("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> main\n") == [2, 4, 6]
