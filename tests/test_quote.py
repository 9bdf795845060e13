"""The quote channel: code in the answer that a returned section shipped."""

from __future__ import annotations

import attrs

from builders import response, session
from test_line_range import A, B, envelope

from citeledger.channels.quote import QuoteChannel
from citeledger.core.accountant import score
from citeledger.core.readers.claude_stream import ClaudeStreamReader
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
    import pytest

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
        assert err.value.key == "channels.quote.context" and "from 0 to 1,000" in str(err.value) and "\n" not in str(err.value)
