"""Files kept between runs (core/cache.py): a run's output never depends on what the cache holds.

The header grammar's LALR tables are kept in the user's cache directory; a
missing, stale, torn or unreadable file, or a cache directory that cannot be
written, costs a rebuild and leaves every byte of the output the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.core import cache

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "tests" / "fixtures" / "real" / "stream" / "express-sendfile-2calls.jsonl"


def score(home: Path, *args: str) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "citeledger.cli", "score", str(RUN), *args],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


def kept(home: Path) -> list[Path]:
    folder = home / "citeledger"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_the_directory_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.directory() == str(tmp_path / "citeledger")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # ignored, as the XDG rule says
    assert cache.directory() == os.path.join(os.path.expanduser("~"), ".cache", "citeledger")


def test_a_name_changes_with_the_content(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    a, b = cache.file_for("k", "text"), cache.file_for("k", "text!")
    assert a != b and a == cache.file_for("k", "text")
    assert cache.file_for("k", "ab", "c") != cache.file_for("k", "a", "bc")


def test_write_is_whole_and_read_gives_it_back(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = cache.file_for("k", "x")
    cache.write(path, b"data")
    assert cache.read(path) == b"data"
    assert [p.name for p in kept(tmp_path)] == [os.path.basename(path)]  # no scratch file left


def test_a_first_run_keeps_the_grammar_and_a_second_reads_it(tmp_path):
    fresh = score(tmp_path)
    files = kept(tmp_path)
    assert any(p.name.startswith("header-grammar-") for p in files), files
    assert score(tmp_path) == fresh


@pytest.mark.parametrize("content", [b"", b"garbage\n", None])
def test_a_damaged_cache_changes_nothing(tmp_path, content):
    expected = score(tmp_path / "clean")
    home = tmp_path / "damaged"
    score(home)
    for path in kept(home):
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2] if content is None else content)  # None: torn in half
    assert score(home) == expected
    assert score(home) == expected  # and the rebuilt file loads


def test_an_unwritable_cache_changes_nothing(tmp_path):
    expected = score(tmp_path / "clean")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert score(blocker) == expected  # $XDG_CACHE_HOME/citeledger cannot be made
