"""The product uses only public APIs of other libraries (issue 19): re's parser
and sre_* modules (gone or deprecated across Python 3.10-3.13), google-re2's
internals, multiprocessing's private attributes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("infra", "harness", "core", "engine", "readers", "channels", "sources", "rules", "report", "cli", "api")
PRIVATE = re.compile(r"\b_parser\b|sre_parse|sre_constants|re2\._|\._regexp|\b_processes\b")


def sources():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def test_the_packages_are_there():
    assert len(list(sources())) > 20


@pytest.mark.parametrize("path", list(sources()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_api_is_named(path):
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PRIVATE.search(line)
    ]
    assert not found, "\n".join(found)
