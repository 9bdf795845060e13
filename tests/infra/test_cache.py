"""Files kept between runs (infra/cache.py): a run's output never depends on what the cache holds.

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

import forked_python

from citeledger.core import cache

ROOT = Path(__file__).resolve().parent.parent.parent
RUN = ROOT / "tests" / "fixtures" / "real" / "stream" / "express-sendfile-2calls.jsonl"


def score(home: Path, *args: str) -> str:
    """A run's output with the cache in `home`: each run in a process of its own, forked from a
    server that has imported citeledger but loaded nothing from a cache (tests/forked_python.py)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(home)}
    done = forked_python.run([sys.executable, "-m", "citeledger.cli", "score", str(RUN), *args],
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
    a, b = cache.file_for("k", "text", version="1"), cache.file_for("k", "text!", version="1")
    assert a != b and a == cache.file_for("k", "text", version="1")
    assert cache.file_for("k", "ab", "c", version="1") != cache.file_for("k", "a", "bc", version="1")
    assert a != cache.file_for("k", "text", version="2")  # another citeledger version never finds it


def test_write_is_whole_and_read_gives_it_back(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = cache.file_for("k", "x", version="1")
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


# ------------------------------------------------------------ the shipped rulesets, kept


def test_every_shipped_ruleset_comes_back_equal_from_its_kept_file(tmp_path, monkeypatch):
    from citeledger.rules import compiled, loader

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    built = {name: compiled.load(name) for name in compiled.shipped_names()}
    assert len(kept(tmp_path)) == len(built)

    def no_build(name):
        raise AssertionError(f"{name} built again although it was kept")

    monkeypatch.setattr(loader, "load_ruleset", no_build)
    for name, ruleset in built.items():
        assert compiled.load(name) == ruleset == loader.build_ruleset(loader.load_tree(name), loader.locate(name))


@pytest.mark.parametrize("content", [b"", b"garbage", b"\x80\x04K\x01.", None])  # None: torn; an int pickled
def test_a_damaged_kept_ruleset_is_built_again(tmp_path, monkeypatch, content):
    from citeledger.rules import compiled, loader

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    expected = loader.load_ruleset("corrected")
    compiled.load("corrected")
    (path,) = kept(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if content is None else content)
    assert compiled.load("corrected") == expected
    assert path.read_bytes() == data  # rewritten whole


def test_a_shipped_name_is_kept_even_beside_a_file_of_that_name_and_a_path_is_read(tmp_path, monkeypatch):
    from citeledger.rules import compiled

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    shipped = (ROOT / "rulesets" / "default.yaml").read_text()
    (tmp_path / "default").write_text(shipped.replace("name: default", "name: mine", 1))
    assert compiled.load("default").name == "default"  # the shipped ruleset, from the kept file
    assert len(kept(tmp_path / "cache")) == 1
    assert compiled.load("./default").name == "mine"  # a path is the file, never kept
    assert len(kept(tmp_path / "cache")) == 1


def test_a_kept_ruleset_spares_a_plain_score_the_yaml_parser(tmp_path):
    probe = ("import sys, io, contextlib\nfrom citeledger.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n    main(['score', sys.argv[1]])\n"
             "print(sorted(m for m in sys.modules if m == 'yaml' or m.startswith('citeledger.rules.loader')))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", probe, str(RUN)], capture_output=True, text=True, env=env,
                           cwd=ROOT, check=True).stdout.split("\n")[-2] for _ in range(2)]
    assert runs == ["['citeledger.rules.loader', 'yaml']", "[]"]


def test_a_kind_kept_to_a_bound_loses_its_oldest_files(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    paths = [cache.file_for("bounded", str(i), version="0") for i in range(5)]
    other = cache.file_for("other", "x", version="0")
    cache.write(other, b"x")
    for i, path in enumerate(paths):
        cache.write(path, b"%d" % i, keep=3)
        os.utime(path, ns=(i * 10**9, i * 10**9))  # written in this order, whatever the clock's grain
    cache.write(paths[4], b"4", keep=3)
    kept = sorted(p for p in paths if os.path.exists(p))
    assert kept == sorted(paths[2:]) and os.path.exists(other)


# ------------------------------------------------------------ the installed packages' state


def test_a_folder_without_distributions_is_stamped_alike_however_it_changes(tmp_path, monkeypatch):
    """The harness's folder (`python -m` puts it on sys.path) changes at every run: the kept
    plugin index and header terminals still hold; a distribution appearing there does not."""
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path[1:]])
    before = cache.installed_state()
    (tmp_path / "run-new-1.jsonl").write_text("{}\n")
    os.utime(tmp_path, ns=(1, 1))
    assert cache.installed_state() == before
    (tmp_path / "plugin-1.0.dist-info").mkdir()
    assert cache.installed_state() != before
    changed = cache.installed_state()
    os.utime(tmp_path, ns=(2, 2))  # installing into a folder of distributions: its time moved
    assert cache.installed_state() != changed
