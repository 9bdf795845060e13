"""Discovery's sniff of a file: every reader asks, the file is opened once (core/reader.py `sniffing`)."""

from __future__ import annotations

import os
from unittest import mock

from citeledger.corpus import claim
from citeledger.infra import files
from citeledger.infra.files import is_file, read_head, sniffing


def test_claim_opens_and_stats_a_file_once(tmp_path):
    path = tmp_path / "run-a.jsonl"
    path.write_bytes(b'{"type":"system"}\n{"type":"result","result":"x"}\n')
    with mock.patch.object(os, "open", wraps=os.open) as opened, mock.patch.object(os.path, "isfile", wraps=os.path.isfile) as isfile:
        assert claim(str(path)) == "claude-stream"
    assert [c.args[0] for c in opened.call_args_list].count(str(path)) == 1
    assert [c.args[0] for c in isfile.call_args_list].count(str(path)) == 1


def test_a_head_asked_in_several_sizes_is_each_size_of_the_file(tmp_path):
    path = tmp_path / "f.jsonl"
    data = bytes(range(256)) * 40  # longer than any head asked
    path.write_bytes(data)
    with sniffing():
        assert read_head(str(path), 10) == data[:10]
        assert read_head(str(path), 4096) == data[:4096]
        assert read_head(str(path), 5000) == data[:5000]  # more than was read: read again
        assert read_head(str(path), 3) == data[:3]


def test_answers_last_only_while_sniffing(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"first")
    with sniffing():
        assert read_head(str(path), 100) == b"first" and is_file(str(path))
        path.write_bytes(b"second")
        assert read_head(str(path), 100) == b"first"  # one file's claim sees one state of it
        with sniffing():  # a nested sniff has a memo of its own
            assert read_head(str(path), 100) == b"second"
    assert read_head(str(path), 100) == b"second"
    os.remove(path)
    assert not is_file(str(path)) and files._sniff.get() is None


def test_a_failed_read_is_not_kept(tmp_path):
    path = tmp_path / "f.jsonl"
    with sniffing():
        try:
            read_head(str(path), 10)
            raise AssertionError("no file, no head")
        except FileNotFoundError:
            pass
        path.write_bytes(b"now")
        assert read_head(str(path), 10) == b"now"
