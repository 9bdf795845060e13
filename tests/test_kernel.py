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

from test_header_fast import hostile
from test_differential import header_suffix

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
        assert kernel.kernel_name() == "C kernel (citeledger.core._kernel)"


@settings(max_examples=500)
@given(text)
def test_sizes_are_the_pure_sizes(s):
    assert _kernel.utf16_len(s) == utf16_len(s) == PURE_MEASURES["utf16"](s)
    assert _kernel.utf8_len(s) == PURE_MEASURES["utf8"](s) == len(s.encode("utf-8", "surrogatepass"))


def test_hand_worked_sizes():
    assert _kernel.utf16_len("a😀—") == 4  # the emoji is a surrogate pair
    assert _kernel.utf8_len("a😀—\ud800") == 1 + 4 + 3 + 3


@settings(max_examples=800)
@given(st.one_of(hostile, header_suffix(), text))
def test_header_scan_gives_the_pure_header(suffix):
    assert header_mod._plain_native("lib/a.js", suffix) == header_mod._plain("lib/a.js", suffix)


def test_hand_worked_header_scan():
    items, tag, stray, more = _kernel.header_scan(" — 9.a(function), b(B), x+2 more, c(d)) · +5 more")
    assert items == [("a", "function"), ("c", "d")]
    assert (tag, stray, more) == (False, True, 2)
    assert _kernel.header_scan("views · focused (x)")[1] is True
    assert _kernel.header_scan(")·)")[2] is False  # right after the path and after "·": OTHER
    assert _kernel.header_scan(") · )")[2] is True  # after " " (an OTHER token): RPAR


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
