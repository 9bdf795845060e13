"""infra/fs.py: which paths are URLs, and a URL asked what os would be asked (fsspec's memory://)."""

from __future__ import annotations

import errno
import os

import fsspec
import pytest

from citeledger.infra import fs
from citeledger.infra.files import open_regular, read_head
from citeledger.infra.jsonl import read_jsonl


@pytest.mark.parametrize("path, url", [
    ("s3://bucket/logs", True), ("gs://b/x.jsonl", True), ("memory://x", True), ("file:///tmp/x", True),
    ("simplecache::s3://bucket/x", True),
    ("C://Users/x.jsonl", False),  # a Windows drive, as fsspec reads it: a scheme has two characters or more
    ("logs/run-1.jsonl", False), ("/tmp/a://b", False), ("./s3://x", False), ("", False),
])
def test_a_url_is_a_scheme_then_colon_slash_slash(path, url):
    assert fs.is_url(path) is url


def test_a_url_child_is_the_url_as_given_then_its_name():
    assert fs.join("memory://b/logs", "run-1.jsonl") == "memory://b/logs/run-1.jsonl"
    assert fs.join("memory://b/logs/", "run-1.jsonl") == "memory://b/logs/run-1.jsonl"


@pytest.fixture
def tree():
    memory = fsspec.filesystem("memory")
    memory.pipe_file("/fs-test/logs/run-1.jsonl", b'{"a":1}\n\nnot json\n{"b":2}')
    memory.pipe_file("/fs-test/logs/sub/run-2.jsonl", b"{}\n")
    yield "memory://fs-test/logs"
    memory.rm("/fs-test", recursive=True)


def test_a_url_directory_is_listed_sorted_with_kinds(tree):
    assert fs.entries(tree) == [("run-1.jsonl", "file"), ("sub", "directory")]
    assert sorted(fs.listdir(tree)) == ["run-1.jsonl", "sub"]
    assert fs.isdir(tree) and not fs.isfile(tree) and fs.exists(tree)
    assert fs.isfile(tree + "/run-1.jsonl") and not fs.exists(tree + "/nothing")
    assert not fs.islink(tree) and fs.kind(tree + "/sub") == "directory"


def test_a_url_file_is_not_listed_as_a_directory(tree):
    with pytest.raises(NotADirectoryError):
        fs.listdir(tree + "/run-1.jsonl")


def test_a_url_directory_is_refused_as_a_file_as_on_disk(tree, tmp_path):
    with pytest.raises(OSError) as remote:
        open_regular(tree)
    with pytest.raises(OSError) as local:
        open_regular(str(tmp_path))
    assert remote.value.strerror == local.value.strerror == "not a regular file (a directory), not read"
    with pytest.raises(FileNotFoundError):
        open_regular(tree + "/nothing")


def test_a_url_reads_as_the_same_bytes_on_disk_read(tree, tmp_path):
    local = tmp_path / "run-1.jsonl"
    local.write_bytes(fsspec.filesystem("memory").cat_file("/fs-test/logs/run-1.jsonl"))
    url = tree + "/run-1.jsonl"
    assert read_head(url, 4) == read_head(str(local), 4) == b'{"a"'
    remote_warnings, local_warnings = [], []
    remote = list(read_jsonl(url, remote_warnings))
    assert remote == list(read_jsonl(str(local), local_warnings)) and len(remote) == 2
    assert [(w.line, w.message) for w in remote_warnings] == [(w.line, w.message) for w in local_warnings]
    assert [w.file for w in remote_warnings] == [url]


def test_a_url_without_its_backend_is_an_oserror_naming_it():
    with pytest.raises(fs.NoBackend) as caught:
        fs.exists("nosuchscheme://bucket/x")
    assert caught.value.filename == "nosuchscheme://bucket/x" and caught.value.errno == errno.ENOPROTOOPT
    assert caught.value.strerror == "no fsspec backend for this URL: Protocol not known: nosuchscheme"


def test_a_disk_directory_lists_each_entry_as_stat_following_links_says(tmp_path):
    # Regular files and directories are known by the listing's entry type; the rest is stat'ed.
    (tmp_path / "file.jsonl").write_text("{}\n")
    (tmp_path / "dir").mkdir()
    (tmp_path / "to-dir").symlink_to("dir")
    (tmp_path / "to-file.jsonl").symlink_to("file.jsonl")
    (tmp_path / "dangling.jsonl").symlink_to("nowhere")
    os.mkfifo(tmp_path / "fifo.jsonl")
    listed = dict(fs.entries(str(tmp_path)))
    assert listed == {
        "dangling.jsonl": "file",  # its reader says why it cannot be read
        "dir": "directory", "fifo.jsonl": "a FIFO", "file.jsonl": "file",
        "to-dir": "directory", "to-file.jsonl": "file",
    }
    assert all(kind == fs.kind(str(tmp_path / name)) for name, kind in listed.items() if name != "dangling.jsonl")
