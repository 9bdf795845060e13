"""Docs that cannot drift: every marked block in README.md and docs/*.md is what its command prints.

A block sits between `<!-- output: COMMAND | ... -->` and `<!-- /output -->`;
docs/make_outputs.py regenerates each in place, and here it runs in check mode.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _make_outputs():
    spec = importlib.util.spec_from_file_location("make_outputs", REPO / "docs" / "make_outputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# One test per document, so parallel workers share the commands' run time.
@pytest.mark.parametrize("doc", _make_outputs().documents(), ids=lambda p: p.name)
def test_every_marked_block_in_the_docs_is_what_its_command_prints(doc, monkeypatch):
    module = _make_outputs()
    monkeypatch.setattr(module, "documents", lambda: [doc])
    assert module.regenerate(check=True) == []


def test_the_readme_score_blocks_and_the_generated_tables_are_marked():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    specs = re.findall(r"<!-- output: (.*?) -->", readme)
    assert specs[:2] == [
        "citeledger score tests/fixtures/real/stream/express-sendfile-2calls.jsonl",
        'citeledger score --sufficiency tests/fixtures/real/stream/express-sendfile-2calls.jsonl | from "Explore sufficiency"',
    ]
    assert any(s.startswith("citeledger compare tests/fixtures/pass --arms baseline new") for s in specs)
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
