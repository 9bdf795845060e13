"""The C kernel (core/_kernel.c) against the pure-Python path it accelerates.

Pure Python is the reference: each kernel function is compared with its
pure counterpart on hostile text (astral characters, lone surrogates,
Latin-1, every character the header grammar cares about). The whole of a
cheap but wide subset of the suite also runs with CITELEDGER_PURE=1.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.core import kernel
from citeledger.core.jsstr import utf16_len
from citeledger.core.sections import header as header_mod
from citeledger.core.sections.units import PURE_MEASURES

from test_header_fast import REAL, REAL_HEADER, hostile, paths
from citeledger.core.sections.header import parse_with_grammar
from test_differential import explore_text, header_suffix
from citeledger.core.sections import splitter
from citeledger.rules.loader import load_ruleset
import re

DEFAULT = load_ruleset("default")

ROOT = Path(__file__).resolve().parent.parent
_kernel = importlib.import_module("citeledger.core._kernel")  # built by pip install -e . (setup.py)

text = st.one_of(
    st.text(max_size=60),
    st.text(alphabet=st.characters(max_codepoint=0xFF), max_size=60),
    st.text(alphabet=st.sampled_from(["a", "é", "—", "\ud800", "\udfff", "😀", "\U0010ffff", "\n", "\x00"]), max_size=40),
    hostile,
)


def test_the_kernel_is_built_where_a_compiler_exists():
    assert shutil.which("cc") or shutil.which("gcc")
    if os.environ.get(kernel.PURE_ENV, "") in ("", "0"):
        assert kernel.native is _kernel
        assert kernel.kernel_name() == "C kernel: citeledger.core.{_kernel, _scan, _match}"


@settings(max_examples=500)
@given(text)
def test_sizes_are_the_pure_sizes(s):
    assert _kernel.utf16_len(s) == utf16_len(s) == PURE_MEASURES["utf16"](s)
    assert _kernel.utf8_len(s) == PURE_MEASURES["utf8"](s) == len(s.encode("utf-8", "surrogatepass"))


def test_hand_worked_sizes():
    assert _kernel.utf16_len("a😀—") == 4  # the emoji is a surrogate pair
    assert _kernel.utf8_len("a😀—\ud800") == 1 + 4 + 3 + 3


@settings(max_examples=700)
@given(paths, st.one_of(hostile, header_suffix(), text))
def test_the_kernels_header_is_the_grammars(path, suffix):
    assert header_mod._native(path, suffix) == parse_with_grammar(path, suffix)


def test_the_kernels_header_on_every_real_header():
    seen = 0
    for file in REAL.rglob("*.jsonl"):
        for m in REAL_HEADER.finditer(file.read_text("utf-8")):
            seen += 1
            assert header_mod._native(m.group(1), m.group(2)) == parse_with_grammar(m.group(1), m.group(2))
    assert seen > 50


def test_hand_worked_header_parse():
    # (parsed, items, more, tags, bare), worked out from header.lark by hand.
    assert _kernel.header_parse(" — 9.a(function), b(B, x+2 more · +5 more") == (
        True, [("a", "function")], 2, [], ["b", "B", "x"])
    assert _kernel.header_parse(" — b(B), x")[0] is False  # ")" after the word B: RPAR, no tag open
    assert _kernel.header_parse(" — a, B · focused (x(method), y) · skeleton ()") == (
        True, [("x", "method")], None, ["focused", "skeleton"], ["a", "B"])
    assert _kernel.header_parse(")·)")[0] is True  # right after the path and after "·": OTHER
    assert _kernel.header_parse(") · )")[0] is False  # after " " (OTHER): RPAR, which nothing opened
    assert _kernel.header_parse("focused (·)")[0] is True  # "·" right after a tag opener: OTHER
    assert _kernel.header_parse("focused (a·)")[0] is False  # after a word inside a tag: DOT
    assert _kernel.header_parse("focused (a")[0] is False  # never closed


CUT_PIECES = ["**`", "`**", "`", "*", "**", "a", "lib/x.js", " — f(function)", "\n", "\r", "\u2028", "\u2029",
              "\n> ", "> ", "😀", "é", "·", " "]
cut_text = st.lists(st.sampled_from(CUT_PIECES), max_size=40).map("".join)


@settings(max_examples=700)
@given(st.one_of(cut_text, explore_text(), text), st.sampled_from(["\n> ", "", "`", "**", "\n"]))
def test_the_kernels_cut_is_the_regex_cut(response, trailer):
    assert _kernel.cut(response, trailer) == splitter._spans(response, DEFAULT.splitter.header, trailer)


def test_the_kernel_cuts_under_the_default_pattern_only():
    assert DEFAULT.splitter.header.pattern == splitter.KERNEL_HEADER  # the pattern _kernel.c implements
    if kernel.native is not None:
        assert splitter._kernel_cuts(DEFAULT.splitter.header)
    assert not splitter._kernel_cuts(re.compile(r"^\*\*`([^`]+)`\*\*(.*)$", re.M))


def test_hand_worked_cut():
    text = "intro\n**`a.js`** — x\nbody\n**`b.js`**\n***`no`**\n**`c\nd`** y\n> trailer"
    # a.js at 6; b.js at 6 + 15 + 5 = 26; c\nd at 26 + 11 + 10 = 47 (its path crosses a line end); the last ends at "\n> ".
    assert _kernel.cut(text, "\n> ") == [(6, 26, "a.js", " — x"), (26, 47, "b.js", ""), (47, 58, "c\nd", " y")]


def test_a_subset_of_the_suite_passes_on_the_pure_path():
    env = dict(os.environ, CITELEDGER_PURE="1")
    done = subprocess.run(
        [sys.executable, "-m", "citeledger.cli", "--version"], capture_output=True, text=True, env=env
    )
    assert "pure Python (CITELEDGER_PURE=1)" in done.stdout
    tests = [
        "tests/test_reference.py", "tests/test_real_fixtures.py", "tests/test_sweep.py",
        "tests/test_differential.py::test_real_and_smoke_fixtures_match_the_oracle",
        "tests/test_header_fast.py::test_fast_path_takes_the_untagged_headers_and_agrees_on_every_real_one",
        "tests/test_header_fast.py::test_hand_worked_headers",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
