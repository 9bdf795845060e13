"""A transcript larger than the documented limit at open is refused unread (issue 32 item 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citeledger.core.errors import InputError
from citeledger.infra import jsonl
from citeledger.readers.claude_stream import ClaudeStreamReader

DOC = Path(__file__).parent.parent.parent / "docs" / "robustness.md"


def test_the_documented_limit_is_the_code_s():
    text = DOC.read_text(encoding="utf-8")
    stated = re.search(r"more\s+than ([\d,]+)\s+bytes \(4 GiB, `MAX_TRANSCRIPT_BYTES`", text)
    assert stated and int(stated.group(1).replace(",", "")) == jsonl.MAX_TRANSCRIPT_BYTES == 4 << 30
    assert f"larger than the\ntranscript limit of {jsonl.MAX_TRANSCRIPT_BYTES:,} bytes at open" in text


def test_an_attacker_gives_a_transcript_past_the_limit_and_it_is_refused_without_reading(tmp_path, monkeypatch):
    def no_reading(*args, **kwargs):
        raise AssertionError("a byte was read")

    monkeypatch.setattr(jsonl, "_runs", no_reading)
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as fh:
        fh.truncate(jsonl.MAX_TRANSCRIPT_BYTES + 1)  # sparse: nothing to read but zeros
    with pytest.raises(InputError) as raised:
        ClaudeStreamReader().read([str(path)])
    assert "larger than the transcript limit of 4,294,967,296 bytes at open, not read" in raised.value.message
    assert raised.value.file == str(path)
