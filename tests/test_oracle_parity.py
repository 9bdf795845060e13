"""citeledger's default ruleset against the JavaScript transcription of the spec.

tests/oracle/reference.mjs gets JavaScript's string semantics for free; on
every real stream fixture and the oracle's own smoke inputs, the text block
must be identical and the JSON numbers equal.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from test_real_fixtures import REAL, segments

from citeledger.core.accountant import score
from citeledger.core.readers.claude_stream import ClaudeStreamReader
from citeledger.report.text import render_text
from citeledger.rules.loader import load_ruleset

ORACLE = Path(__file__).parent / "oracle"
DEFAULT = load_ruleset("default")

SESSIONS = [
    segments(p) for p in sorted((REAL / "stream").glob("*.jsonl")) if not re.search(r"\.t\d+\.jsonl$", p.name)
] + [
    [str(ORACLE / "smoke" / "run.jsonl"), str(ORACLE / "smoke" / "run.t2.jsonl")],
    [str(ORACLE / "smoke" / "interactive.jsonl")],
]


def oracle(files, *flags) -> str:
    done = subprocess.run(
        ["node", str(ORACLE / "reference.mjs"), *flags, *files], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.parametrize("files", SESSIONS, ids=lambda f: Path(f[0]).name)
def test_text_block_and_numbers_equal_the_oracle(files):
    result = score(ClaudeStreamReader().read(files), DEFAULT)
    assert render_text(result) == oracle(files)
    want = json.loads(oracle(files, "--json"))
    assert (result.envelope, result.used, result.used_by_rank[0]) == (want["envelope"], want["used"], want["used_by_path"])
    assert result.efficiency == want["efficiency"]
    assert result.lower_bound == want["path_efficiency"]
    assert [(f.path, f.chars, f.calls, f.verdict.channel, f.verdict.evidence) for f in result.files] == [
        (f["path"], f["chars"], f["calls"], f["credited"], f["evidence"]) for f in want["files"]
    ]
    assert result.answer == want["answer"]
