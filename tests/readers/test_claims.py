"""Which reader claims a file, against an attacker (issue 32 item 8): a claim sniffs the first
record the way the reading decodes it (a lone surrogate, a Latin-1 byte, a BOM), knows a rollout
whose session_meta line is larger than the sniff reads, and no file is claimed by two readers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import write_jsonl
from citeledger.corpus import claim, reader_order

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ROLLOUT = next((FIXTURES / "codex").glob("rollout-*.jsonl"))
GEMINI_LOG = FIXTURES / "gemini" / "session-2026-09-12T10-00-6d2b8f40.jsonl"


def _with_first_line(path: Path, source: Path, first: bytes) -> Path:
    rest = source.read_bytes().split(b"\n", 1)[1]
    path.write_bytes(first + b"\n" + rest)
    return path


def _rollout_first(**payload) -> dict:
    first = json.loads(ROLLOUT.read_bytes().split(b"\n", 1)[0])
    first["payload"].update(payload)
    return first


def _gemini_first(**extra) -> dict:
    return {**json.loads(GEMINI_LOG.read_bytes().split(b"\n", 1)[0]), **extra}


def _score(capsys, path: Path) -> dict:
    from citeledger.cli import main

    main(["score", "--json", str(path)])
    return json.loads(capsys.readouterr().out)


def test_a_rollout_whose_session_meta_holds_a_lone_surrogate_is_read_as_codex(tmp_path, capsys):
    first = json.dumps(_rollout_first(originator="\ud800")).encode()  # `\ud800`: JSON.parse reads it
    path = _with_first_line(tmp_path / "rollout-a.jsonl", ROLLOUT, first)
    assert claim(str(path)) == "codex"  # before: orjson refused the line, claude-stream took the file
    assert _score(capsys, path)["envelope"] == 25145  # the fixture's envelope (docs/codex.md)


def test_a_rollout_whose_session_meta_holds_a_latin1_byte_is_read_as_codex(tmp_path, capsys):
    first = json.dumps(_rollout_first(cwd="/tmp/proj/express"), ensure_ascii=False).encode()
    first = first.replace(b'"originator": "codex_cli_rs"', b'"originator": "caf\xe9"')  # Latin-1, no UTF-8
    path = _with_first_line(tmp_path / "rollout-b.jsonl", ROLLOUT, first)
    assert b"\xe9" in path.read_bytes()
    assert claim(str(path)) == "codex"
    assert _score(capsys, path)["envelope"] == 25145


@pytest.mark.parametrize("first", [json.dumps(_gemini_first(kind="\ud800")).encode(),
                                   json.dumps(_gemini_first(kind="m")).encode().replace(b'"m"', b'"caf\xe9"'),
                                   b"\xef\xbb\xbf" + json.dumps(_gemini_first()).encode()],
                         ids=["lone-surrogate", "latin-1-byte", "bom"])
def test_a_gemini_log_whose_metadata_record_holds_what_json_parse_reads_is_read_as_gemini(tmp_path, first):
    path = _with_first_line(tmp_path / "session-x.jsonl", GEMINI_LOG, first)
    assert claim(str(path)) == "gemini"  # before: claude-interactive (it names sessionId), then refused


@pytest.mark.parametrize("compact", [True, False], ids=["as-codex-writes-it", "spaced"])
def test_a_rollout_whose_session_meta_line_is_9_mb_is_read_as_codex(tmp_path, capsys, compact):
    first = _rollout_first(instructions="be brief. " * 900_000)  # 9 MB, past the 8 MiB a sniff reads
    text = json.dumps(first, separators=(",", ":") if compact else None).encode()
    assert len(text) > 9_000_000
    path = _with_first_line(tmp_path / "rollout-c.jsonl", ROLLOUT, text)
    assert claim(str(path)) == "codex"  # before: "not a Claude Code transcript"
    assert _score(capsys, path)["envelope"] == 25145


def test_a_claude_transcript_whose_first_line_is_huge_is_still_claude(tmp_path):
    first = json.dumps({"type": "system", "subtype": "init", "note": "session_meta " * 800_000}).encode()
    path = write_jsonl(tmp_path / "run.jsonl", [first.decode(), {"type": "result", "result": "x"}])
    assert claim(str(path)) == "claude-stream"  # only a line opening as a rollout's is known by its start


def test_a_gemini_metadata_record_that_also_looks_like_a_legacy_codex_line_is_read_as_gemini(tmp_path):
    first = json.dumps(_gemini_first(id="x-1", timestamp="2026-09-12T10:00:01Z")).encode()
    path = _with_first_line(tmp_path / "session-y.jsonl", GEMINI_LOG, first)
    assert claim(str(path)) == "gemini"  # before: codex (asked first) claimed it, then refused it
    legacy = write_jsonl(tmp_path / "legacy.jsonl", [{"id": "x-1", "timestamp": "2025-04-01T10:00:00Z"}])
    assert claim(str(legacy)) == "codex"  # a legacy Codex session line is still Codex's


def _hostile(tmp_path: Path) -> list[Path]:
    """Every file the tests above build, and the first-record shapes that sit between two formats."""
    firsts = {
        "rollout-surrogate.jsonl": (ROLLOUT, json.dumps(_rollout_first(originator="\ud800")).encode()),
        "rollout-huge.jsonl": (ROLLOUT, json.dumps(_rollout_first(instructions="x" * 9_000_000)).encode()),
        "session-surrogate.jsonl": (GEMINI_LOG, json.dumps(_gemini_first(kind="\ud800")).encode()),
        "session-legacy-too.jsonl": (GEMINI_LOG, json.dumps(_gemini_first(id="i", timestamp="t")).encode()),
        "session-typed.jsonl": (GEMINI_LOG, json.dumps(_gemini_first(type="session_meta", payload={})).encode()),
        "legacy-bom.jsonl": (ROLLOUT, b"\xef\xbb\xbf" + json.dumps({"id": "i", "timestamp": "t"}).encode()),
    }
    return [_with_first_line(tmp_path / name, source, first) for name, (source, first) in firsts.items()]


def test_no_shipped_or_hostile_fixture_is_claimed_by_two_readers(tmp_path):
    """The readers that claim by content are asked first (priority >= 0, core/plugins.readers):
    at most one of them claims any file, so their order decides nothing. The Claude readers after
    them are the fallbacks, whose order is the rule (claude-interactive before claude-stream)."""
    content = [(name, cls) for name, cls in reader_order() if getattr(cls, "priority", 0) >= 0]
    assert {name for name, _ in content} >= {"codex", "gemini", "gemini-stream"}
    files = [p for p in FIXTURES.rglob("*") if p.suffix in (".jsonl", ".json") and p.is_file()]
    assert len(files) > 100
    twice = {}
    for path in [*files, *_hostile(tmp_path)]:
        claimants = [name for name, cls in content if cls().claims(str(path))]
        if len(claimants) > 1:
            twice[str(path)] = claimants
    assert twice == {}
