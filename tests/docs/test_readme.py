"""Docs that cannot drift: every marked block in README.md and docs/*.md is what its command prints.

A block sits between `<!-- output: COMMAND | ... -->` and `<!-- /output -->`;
docs/make_outputs.py regenerates each in place, and here it runs in check mode.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

import forked_python

REPO = Path(__file__).resolve().parent.parent.parent


def _make_outputs():
    spec = importlib.util.spec_from_file_location("make_outputs", REPO / "docs" / "make_outputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# One test per document, so parallel workers share the commands' run time. Each command runs
# in a process forked from a warm interpreter (tests/forked_python.py): no start-up each.
@pytest.mark.parametrize("doc", _make_outputs().documents(), ids=lambda p: p.name)
def test_every_marked_block_in_the_docs_is_what_its_command_prints(doc, monkeypatch):
    module = _make_outputs()
    if module.SHARED_PATH in doc.read_text(encoding="utf-8") and not module.SHARED.is_dir():
        pytest.skip("../shared/transcripts is absent")
    monkeypatch.setattr(module, "documents", lambda: [doc])
    assert module.regenerate(check=True, launch=forked_python.run) == []


def test_the_readme_score_blocks_and_the_generated_tables_are_marked():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    specs = re.findall(r"<!-- output: (.*?) -->", readme)
    assert specs[:2] == [
        "citeledger score tests/fixtures/real/stream/express-sendfile-2calls.jsonl",
        'citeledger score --sufficiency tests/fixtures/real/stream/express-sendfile-2calls.jsonl | from "Explore sufficiency"',
    ]
    assert any(s.startswith("citeledger compare tests/fixtures/pass --arms baseline new") for s in specs)
    # The harness's three blocks of one real run, and one arm table (issue 30).
    assert ("citeledger score --harness --brief tests/fixtures/real/stream/express-sendfile-2calls.jsonl"
            ' | from "Residual context occupancy"') in specs
    assert "citeledger compare tests/fixtures/pass/cg22/ab-express --arms new baseline --harness" in specs
    for doc, script in (("rulesets.md", "make_ruleset_table.py"), ("line-level.md", "make_line_table.py")):
        assert f"<!-- output: python docs/{script} | raw -->" in (REPO / "docs" / doc).read_text(encoding="utf-8")


def test_a_drifted_block_is_found(tmp_path, monkeypatch):
    module = _make_outputs()
    doc = tmp_path / "x.md"
    doc.write_text("<!-- output: citeledger score tests/fixtures/real/stream/express-res-send.jsonl | head 1 -->\n"
                   "```\nExplore allocation — (9 calls)\n```\n<!-- /output -->\n", encoding="utf-8")
    monkeypatch.setattr(module, "documents", lambda: [doc])
    monkeypatch.setattr(module, "REPO", tmp_path)
    (tmp_path / "tests").symlink_to(REPO / "tests")
    for name in module.LINKED[1:]:
        (tmp_path / name).symlink_to(REPO / name)
    assert module.regenerate(check=True) == ["x.md: citeledger score tests/fixtures/real/stream/express-res-send.jsonl | head 1"]
    assert module.regenerate(check=False) == ["x.md: citeledger score tests/fixtures/real/stream/express-res-send.jsonl | head 1"]
    assert "(1 call, 3 files)" in doc.read_text(encoding="utf-8")
    assert module.regenerate(check=True) == []


# What a pasted command output starts with: a prompt, citeledger's own lines, a score block, a
# diagnostics block, the harness view, a ladder.
OUTPUT_START = re.compile(
    r"^(\$ |citeledger: |Explore allocation|Explore diagnostics|Diagnostics|harness view|\s*ladder \(|\s*cg\d+/ab-)"
)
# Pasted outputs that no command here can print: timings and machine facts (a benchmark), and the
# version line, and the note of a run that takes over from one killed outright (its pid is the dead run's).
NOT_FROM_A_COMMAND = (
    "bench/linear.py", "bench/sweep_page.py", "citeledger --version",
    "taking over from a run that ended without finishing",
)


def _blocks(text: str):
    """(first line, marked) for every fenced or indented block of a Markdown text."""
    lines, i, marked = text.split("\n"), 0, False
    while i < len(lines):
        line = lines[i]
        marked = (marked or "<!-- output:" in line) and "<!-- /output -->" not in line
        if line.startswith("```"):
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            yield "\n".join(lines[i + 1:j]), marked
            i = j + 1
        elif line.startswith("    ") and (i == 0 or not lines[i - 1].strip() or "<!-- output:" in lines[i - 1]):
            j = i
            while j < len(lines) and lines[j].startswith("    "):
                j += 1
            yield "\n".join(x[4:] for x in lines[i:j]), marked
            i = j
        else:
            i += 1


def test_every_pasted_output_in_the_docs_is_a_marked_block():
    unmarked = []
    for doc in _make_outputs().documents():
        if doc.name == "decisions.md":  # a record of decisions, not a manual
            continue
        for block, marked in _blocks(doc.read_text(encoding="utf-8")):
            first = block.lstrip("\n").split("\n")[0]
            if not marked and OUTPUT_START.match(first) and not any(n in block for n in NOT_FROM_A_COMMAND):
                unmarked.append(f"{doc.name}: {first[:80]}")
    assert unmarked == []
