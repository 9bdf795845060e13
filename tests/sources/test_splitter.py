"""The explore splitter's cut, whichever way it is made, is re's cut of the text.

The splitter slices the text's UTF-8 bytes when the header pattern hands them
back (`LinearPattern.byte_matches`) and the text by code points otherwise
(ASCII, lone surrogates); sizes come from lengths already known
(`units.sized`). The oracle here is the plain algorithm on Python's re: every
header match to the next, the last to the trailer, each piece measured by
MEASURES.
"""

from __future__ import annotations


import attrs
import pytest
from builders import as_re
from hypothesis import given
from hypothesis import strategies as st

from citeledger.core.sections.units import MEASURES, sized
from citeledger.rules.loader import load_ruleset
from citeledger.sources.sectioned.splitter import Cuts, _cut_after_last_fence, split_sections

DEFAULT = load_ruleset("default").sources[0].options  # the explore source's header, trailer, trailing block
HEADER = DEFAULT.header.pattern

CHARS = list("ab /.`*\n\r> -_()") + ["\u2028", "\u2029", "😀", "é", "—", "\ud800", "\udfff", "\ufffd"]
LINE_STARTS = ["\n", "\r", "\u2028", "\u2029", "\r\n", "", " ", "x", "é", "😀"]
free = st.lists(st.sampled_from(CHARS + ["```", "**`"]), max_size=20).map("".join)
texts = st.lists(st.one_of(
    st.builds(lambda s, p, x: f"{s}**`{p}`**{x}", st.sampled_from(LINE_STARTS), free, free),
    free,
    st.just("\n```js\n1  const x = `a`;\n```\n"),
    st.just("\n> guidance"),
), max_size=8).map("".join)


def oracle(text: str, rules, unit: str = "utf16") -> list[tuple]:
    """[(path, suffix, chars, text, meta)] by re and code point slicing."""
    heads = list(as_re(rules.header.pattern).finditer(text))
    out = []
    for i, head in enumerate(heads):
        if i + 1 < len(heads):
            end = heads[i + 1].start()
        else:
            found = text.find(rules.trailer, head.start()) if rules.trailer else -1
            end = len(text) if found == -1 else found
        out.append([head.group(1), head.group(2), text[head.start():end], False, head.end() - head.start()])
    if out and rules.trailing_block == "meta":
        kept, meta = _cut_after_last_fence(out[-1][2], out[-1][4])
        out[-1][2] = kept
        if meta:
            out.append(["", None, meta, True, 0])
    measure = MEASURES[unit]
    return [(p[0], p[1], measure(p[2]), p[2], p[3]) for p in out]


def cut(text: str, rules, unit: str = "utf16") -> list[tuple]:
    return [(s.path, s.header and s.header.suffix, s.chars, s.text, s.meta) for s in split_sections(text, rules, unit)]


@pytest.mark.parametrize("unit", ["utf16", "utf8", "codepoint"])
@pytest.mark.parametrize("trailing_block", ["last-file", "meta"])
@given(text=texts)
def test_the_cut_is_res_cut_of_the_text(unit, trailing_block, text):
    rules = attrs.evolve(DEFAULT, trailing_block=trailing_block)
    assert cut(text, rules, unit) == oracle(text, rules, unit)


@given(text=texts)
def test_every_split_of_one_cut_is_the_cut_made_afresh(text):
    # One _Cut serves every unit and trailing block; asked in any order, each is its own fresh cut.
    cuts = Cuts()
    for unit in ("utf16", "utf8", "codepoint"):
        for trailing_block in ("meta", "last-file"):
            rules = attrs.evolve(DEFAULT, trailing_block=trailing_block)
            assert cuts.cut(text, rules).sections(trailing_block, unit) == split_sections(text, rules, unit)


def test_bytes_and_code_points_cut_alike():
    # The same text cut from its UTF-8 bytes, and from code points (a lone surrogate
    # makes the bytes a stand-in); the sections outside the surrogate's are equal.
    body = "**`a/é.js`** — f(function)\n```\n1  x = '😀'\n```\n**`b.js`** — g(method)\nbody\n> end"
    data, _ = DEFAULT.header.byte_matches(body)
    assert data == body.encode("utf-8")
    assert DEFAULT.header.byte_matches(body + "\ud800")[0] is None
    assert cut(body + "\ud800", DEFAULT) == cut(body, DEFAULT)
    assert cut(body, DEFAULT) == oracle(body, DEFAULT)
    assert [s[2] for s in cut(body, DEFAULT)] == [len("**`a/é.js`** — f(function)\n```\n1  x = '😀'\n```\n") + 1, len("**`b.js`** — g(method)\nbody")]


def test_a_trailer_holding_a_lone_surrogate_is_not_found_in_the_bytes():
    rules = attrs.evolve(DEFAULT, trailer="\ud800")
    text = "**`a.js`** — x\nbody\n"
    assert cut(text, rules) == oracle(text, rules) == [("a.js", " — x", len(text), text, False)]


@given(st.text(alphabet=st.sampled_from(CHARS + ["\U0010ffff", "\u0080", "\u07ff", "\u0800"]), max_size=30))
def test_sized_is_the_measure(text):
    try:
        utf8 = len(text.encode("utf-8"))
    except UnicodeEncodeError:  # no exact encoding: the splitter gives no length
        utf8 = -1
    for unit, measure in MEASURES.items():
        assert sized(unit, text, utf8) == measure(text)
        assert sized(unit, text) == measure(text)
