"""The quote channel: code in the answer that a returned section shipped."""

from __future__ import annotations

import re

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import response, session
from test_line_range import A, B, envelope

from citeledger.channels import quote as quote_module
from citeledger.channels.quote import QuoteChannel, fenced_blocks, without_blocks
from citeledger.core.accountant import score
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.report.text import render_text
from citeledger.rules.loader import load_ruleset

# lib/c.js ships `return compute(1, 2, 3);` too (line 5), as a.js does (line 11).
C = "**`lib/c.js`** — m(function)\n\n```javascript\n4\tfunction m() {\n5\t  return compute(1, 2, 3);\n6\t}\n```\n\n"


def channel(**changes) -> QuoteChannel:
    opts = load_ruleset("lines").options_for("quote")
    return QuoteChannel(attrs.evolve(opts, **changes))


def test_quotes_are_normalised_and_filtered_by_length():
    answer = (
        "It calls `return   compute(1,  2, 3);` and `f()`.\n\n"
        "```js\n11\t  return compute(1, 2, 3);\nfunction f() {\n```\n"
    )
    # "return compute(1, 2, 3);" is 24 chars (>= 20); `f()` (3) and
    # "function f() {" (14) are too short; the fenced copy had its line number stripped.
    assert channel().quotes(answer) == ["return compute(1, 2, 3);"]
    assert channel(fenced=False).quotes("```\nmodule.exports = someLongName;\n```") == []
    assert channel(inline=False).quotes("`module.exports = someLongName;`") == []


def test_bare_names_are_not_quotes_when_switched_off():
    # 21 chars, long enough, but one identifier: the symbol channel's kind of citation.
    answer = "`full_dispatch_request` then `Symbol.for('skip-override')`"
    assert channel(bare_names=True).quotes(answer) == ["full_dispatch_request", "Symbol.for('skip-override')"]
    assert channel(bare_names=False).quotes(answer) == ["Symbol.for('skip-override')"]


def test_inline_fragment_credits_its_line():
    found = channel().judge("Then `compute(1, 2, 3);` runs.", envelope([A, B]))
    # "compute(1, 2, 3);" is 17 chars: under the minimum, credits nothing.
    assert not found["lib/a.js"].credited
    found = channel(min_length=10).judge("Then `compute(1, 2, 3);` runs.", envelope([A, B]))
    assert found["lib/a.js"].credited and found["lib/a.js"].lines == {11}
    assert not found["lib/b.js"].credited


def test_fenced_block_credits_each_quoted_line_with_context():
    answer = "```js\nmodule.exports = k;\nconst k = 1;\n```"
    # "module.exports = k;" is 19 chars; "const k = 1;" 12: both count with min_length 12.
    found = channel(min_length=12).judge(answer, envelope([A, B]))["lib/b.js"]
    assert found.lines == {1, 2}
    found = channel(min_length=19).judge(answer, envelope([A, B]))["lib/b.js"]
    assert found.lines == {2}
    # Context 1 around line 2 is 1..3, of which 1 and 2 were shipped.
    assert channel(min_length=19, context=1).judge(answer, envelope([A, B]))["lib/b.js"].lines == {1, 2}


def test_quote_that_occurs_in_two_files():
    env = envelope([A, C])
    answer = "`return compute(1, 2, 3);`"
    # Limit 3: two owners are fewer than 3, both are credited.
    both = channel(ambiguity_limit=3).judge(answer, env)
    assert both["lib/a.js"].lines == {11} and both["lib/c.js"].lines == {5}
    # Limit 2: code found in 2 files identifies neither.
    neither = channel(ambiguity_limit=2).judge(answer, env)
    assert not neither["lib/a.js"].credited and not neither["lib/c.js"].credited
    assert "occurs in 2 files" in neither["lib/a.js"].reason


def test_quote_that_occurs_in_two_sections_of_one_file(tmp_path):
    # a.js returned by two calls: a quote of line 11 credits it in both, 30 chars each.
    rules = tmp_path / "r.yaml"
    rules.write_text("extends: lines\nchannels:\n  rank: [path, symbol, quote]\n")
    path = session(tmp_path, [response(A), response(A, B)], "It does `return compute(1, 2, 3);` first.")
    result = score(ClaudeStreamReader().read([str(path)]), load_ruleset(str(rules)))
    assert [f.verdict.channel for f in result.files] == ["quote", None]
    assert result.line_used == 30 + 30 == result.line_pinned
    assert [c.line_used for c in result.calls] == [30, 30]
    assert result.used == 2 * len(A)


def test_code_outside_numbered_lines_is_not_a_quote():
    # The header's text and the gap marker are not shipped lines.
    found = channel(min_length=5).judge("`f(function), g(function)` and `gap: h (lib/a.js:15)`", envelope([A]))
    assert not found["lib/a.js"].credited


def test_ladder_shows_what_quote_adds(tmp_path):
    # Only c.js is quoted, never named: path and symbol credit nothing, quote credits c.js.
    path = session(tmp_path, [response(A, C)], "The second helper ends with:\n\n```\n  return compute(1, 2, 3);\n}\n```\n")
    result = score(ClaudeStreamReader().read([str(path)]), load_ruleset("lines"))
    # The quote occurs in a.js and c.js (2 files, under the limit of 3): both credited.
    env = len(A) + len(C)
    assert result.envelope == env
    assert [name for name, _ in result.ladder] == ["path", "symbol", "line_range", "quote"]
    assert [e for _, e in result.ladder] == [0.0, 0.0, 0.0, 1.0]
    # a.js line 11 costs 3 + 26 + 1 = 30; c.js line 5 has a one-digit number: 2 + 26 + 1 = 29.
    assert result.line_used == 30 + 29
    assert "+quote 100.0%" in render_text(result)


# Issue 20 item 8: quote.context builds a set of 2 x context line numbers per quoted line.
def test_quote_context_has_an_upper_bound(tmp_path):
    from citeledger.channels.quote import MAX_CONTEXT
    from citeledger.rules.loader import RulesetError

    def ruleset(context):
        path = tmp_path / f"q{context}.yaml"
        path.write_text(f"extends: lines\nchannels:\n  quote:\n    context: {context}\n", encoding="utf-8")
        return str(path)

    assert load_ruleset(ruleset(MAX_CONTEXT)).options_for("quote").context == MAX_CONTEXT
    for too_many in (MAX_CONTEXT + 1, 10**9):
        with pytest.raises(RulesetError) as err:
            load_ruleset(ruleset(too_many))
        assert err.value.key == "channels.quote.context" and "an integer from 0 to 1,000" in str(err.value) and "\n" not in str(err.value)


# ---------------------------------------------------------------------------
# Fenced blocks: found in Python, in O(n log n), exactly where the regex lines.yaml
# used to hold finds them on re (whose backreference RE2 cannot run).

def old_fence(chars="`~", minimum=3) -> re.Pattern:
    """The oracle: lines.yaml's former pattern (chars "`~", minimum 3), on re."""
    fence = "|".join(f"{c if c in '`~' else re.escape(c)}{{{minimum},}}" for c in chars)
    return re.compile(rf"(?ms)^[ \t]*(?P<fence>{fence})[^\n]*\n(?P<code>.*?)^[ \t]*(?P=fence)[ \t]*$", re.ASCII)


def test_the_oracle_is_the_pattern_lines_shipped():
    assert old_fence().pattern == r"(?ms)^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<code>.*?)^[ \t]*(?P=fence)[ \t]*$"


def blocks(text, chars="`~", minimum=3):
    return [(b.start, b.end, b.code) for b in fenced_blocks(text, chars, minimum)]


@pytest.mark.parametrize("text, expected", [
    # The closing run equals the opening one; the span stops before the closing line's newline.
    ("```js\na\n```\nafter", [(0, 11, "a\n")]),
    # Indents and trailing blanks of spaces and tabs; the body keeps its own.
    (" \t```\n  x\n\t```  \t\n", [(0, 17, "  x\n")]),
    # Empty body; tildes; a closing line at the very end (no newline).
    ("~~~\n~~~", [(0, 7, "")]),
    # A longer closing run does not close a shorter fence, a shorter one does not close a longer one...
    ("```\na\n````\nb\n```", [(0, 16, "a\n````\nb\n")]),
    # ...unless no closing line of the opening run follows: re backs off to a shorter run.
    ("````\na\n```\nb", [(0, 10, "a\n")]),
    ("`````\na\n```\nb\n````\n", [(0, 18, "a\n```\nb\n")]),
    # A tilde line never closes a backtick fence; a CR is not a blank.
    ("```\n~~~\n```\r\n```", [(0, 16, "~~~\n```\r\n")]),
    # An opening line needs its newline; two backticks are no fence; an unclosed fence is no block.
    ("```", []), ("``\nx\n``", []), ("```\nx\n", []),
    # After a block, the search resumes after its closing line (which opens nothing).
    ("```\na\n```\nb\n```\n", [(0, 9, "a\n")]),
    ("```\n```\n```\nx\n```", [(0, 7, ""), (8, 17, "x\n")]),
    # An unclosed opening line is skipped; a later line may open a block.
    ("~~~x\n```y\nz\n```", [(5, 15, "z\n")]),
])
def test_fenced_blocks_by_hand(text, expected):
    assert blocks(text) == expected
    assert [(m.start(), m.end(), m.group("code")) for m in old_fence().finditer(text)] == expected


PIECES = ["```", "````", "`````", "~~~", "~~~~", "``", "`", "~", " ", "\t", "\n", "\n", "\n", "\r", "a", "js", "x`", "é", "😀"]
answers = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=300)
@given(answers)
def test_fenced_blocks_match_the_old_regex(text):
    expected = [(m.start(), m.end(), m.group("code")) for m in old_fence().finditer(text)]
    assert blocks(text) == expected
    assert without_blocks(text, fenced_blocks(text, "`~", 3)) == old_fence().sub("\n", text)


@settings(max_examples=150)
@given(
    st.lists(st.sampled_from(["`", "~", "*", "\r", "é"]), min_size=1, max_size=3, unique=True),
    st.integers(1, 4),
    st.lists(st.sampled_from(["`", "``", "~~", "**", "*", "\r", "é", " ", "\t", "\n", "\n", "a"]), max_size=25).map("".join),
)
def test_other_fence_characters_and_minimums_match_their_regex(chars, minimum, text):
    expected = [(m.start(), m.end(), m.group("code")) for m in old_fence(chars, minimum).finditer(text)]
    assert blocks(text, chars, minimum) == expected


def test_quotes_come_from_blocks_and_spans_outside_them():
    answer = (
        "Before `const early = fetchTheThing();`\n"
        "````js\nconst inBlock = compute(1, 2, 3);\n```\nstill in the block, `not a span here at all`\n````\n"
        "After `const late = anotherLongerCall();`\n"
    )
    # The ```` block holds the ``` line (too short to count) and the span-looking line.
    assert channel().quotes(answer) == [
        "const inBlock = compute(1, 2, 3);", "still in the block, `not a span here at all`",
        "const early = fetchTheThing();", "const late = anotherLongerCall();",
    ]


def test_a_ruleset_chooses_the_fence_characters_and_run(tmp_path):
    path = tmp_path / "q.yaml"
    path.write_text("extends: lines\nchannels:\n  quote:\n    fence_chars: ['~']\n    fence_min: 4\n", encoding="utf-8")
    opts = load_ruleset(str(path)).options_for("quote")
    assert (opts.fence_chars, opts.fence_min) == (("~",), 4)
    quoted = "const someLongName = compute(1, 2, 3);"
    ch = QuoteChannel(opts)
    assert ch.quotes(f"~~~~\n{quoted}\n~~~~\n") == [quoted]
    assert ch.quotes(f"~~~\n{quoted}\n~~~\n") == []  # a run of 3 is no fence now
    assert ch.quotes(f"```\n{quoted}\n```\n") == []  # nor are backticks


# Hostile: each unclosed opening line made re scan the rest of the answer
# (quadratic). Closing lines of runs 3 to 6 come first, so every opening line
# (a run of 7) tries each of them and finds none after it.
def hostile_answer(lines: int) -> str:
    return "```\n````\n`````\n``````\n" + "```````js\n" * lines + "done\n"


def test_unclosed_fences_cost_a_few_lookups_each(monkeypatch):
    import bisect

    calls = []

    def counting(rows, x):
        calls.append(x)
        return bisect.bisect_right(rows, x)

    monkeypatch.setattr(quote_module, "bisect_right", counting)
    cost = {}
    for lines in (2_000, 20_000):
        calls.clear()
        assert fenced_blocks(hostile_answer(lines), "`~", 3) == []
        cost[lines] = len(calls)
    # Each opening line costs one lookup among the runs present and one per
    # run from 6 down to 3 (re scanned the rest of the answer for each run 7 to 3).
    assert cost[20_000] - cost[2_000] == 5 * 18_000
