"""Real codegraph output: numbers worked out by hand in tests/fixtures/real/EXPECTED.md.

expected.json was derived without citeledger (fixtures/hand_expected.mjs and a
separate Python count, with hand notes per file); here citeledger must agree.
"""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest

from citeledger.core.accountant import score
from citeledger.readers.claude_interactive import ClaudeInteractiveReader
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.report.text import label, render_text
from citeledger.rules.loader import load_ruleset

REAL = Path(__file__).parent.parent / "fixtures" / "real"
EXPECTED = json.loads((REAL / "expected.json").read_text())
DEFAULT = load_ruleset("default")


def segments(first: Path) -> list[str]:
    stem = str(first)[: -len(".jsonl")]
    rest = sorted(glob.glob(glob.escape(stem) + ".t*.jsonl"), key=lambda p: int(p.rsplit(".t", 1)[1][:-6]))
    return [str(first)] + rest


def read(rel: str):
    path = REAL / rel
    if rel.startswith("interactive/"):
        return ClaudeInteractiveReader().read([str(path)])
    return ClaudeStreamReader().read(segments(path))


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_real_fixture_matches_hand_worked_numbers(rel):
    want = EXPECTED[rel]
    result = score(read(rel), DEFAULT)
    assert result.envelope == want["envelope"]
    assert result.used == want["used"]
    assert result.used_by_rank[0] == want["used_by_path"]
    assert len(result.files) == want["files_returned"]
    assert result.files_used == want["files_used"]
    assert result.has_answer == want["has_answer"]
    assert [(c.envelope, c.used) for c in result.calls] == [(c["envelope"], c["used"]) for c in want["calls"]]
    assert [list(map(list, c.files)) for c in result.calls] == [c["sections"] for c in want["calls"]]
    credited = {f.path: label(f.verdict) for f in result.files if f.verdict.credited}
    assert credited == want["credited"]
    assert render_text(result) == want["text"] + "\n"
    skipped = [w for w in result.warnings if "not JSON" in w.message]
    assert len(skipped) == want["invalid_json_lines"]


def test_fixture_set_covers_the_promised_ground():
    trees = {p.name for p in (REAL / "explore").iterdir()}
    assert {"express-4.21.2", "fastify-5.12.8", "flask-3.0.3", "pkg-errors-0.9.1"} <= trees
    assert any(e["calls"] and len(e["calls"]) >= 2 for e in EXPECTED.values())
    assert any(not e["has_answer"] for e in EXPECTED.values())
    assert any(not e["calls"] for e in EXPECTED.values())
