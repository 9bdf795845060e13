"""The line_range channel and line-level accounting, on sections whose every byte is known.

Sizes are worked out by hand in the comments: a shipped line costs its number,
the tab, the code and the newline.
"""

from __future__ import annotations

import json

import attrs
import pytest

from builders import response, session

from citeledger.core.channel import Envelope
from citeledger.channels.line_range import LineRangeChannel
from citeledger.core import shipped_lines
from citeledger.core.accountant import score
from citeledger.core.sections import Call, Section
from citeledger.core.transcript import Origin
from citeledger.readers.claude_stream import ClaudeStreamReader
from citeledger.report.jsonreport import session_dict
from citeledger.report.text import render_text
from citeledger.rules.loader import RulesetError, load_ruleset

# lib/a.js ships lines 10-12 and 20-22; 13-19 are behind a gap marker.
A_HEAD = "**`lib/a.js`** — f(function), g(function)\n\n```javascript\n"
A_BODY = (
    "10\tfunction f() {\n"  # 3 + 14 + 1 = 18
    "11\t  return compute(1, 2, 3);\n"  # 3 + 26 + 1 = 30
    "12\t}\n"  # 5
    "\n... (gap: h (lib/a.js:15)) ...\n\n"  # not a shipped line
    "20\tfunction g() {\n"  # 18
    "21\t  return 2;\n"  # 3 + 11 + 1 = 15
    "22\t}\n"  # 5
)
A = A_HEAD + A_BODY + "```\n\n"
# lib/b.js ships lines 1-2.
B = "**`lib/b.js`** — k(function)\n\n```javascript\n1\tconst k = 1;\n2\tmodule.exports = k;\n```\n\n"
# "1\tconst k = 1;\n" = 2 + 12 + 1 = 15; "2\tmodule.exports = k;\n" = 2 + 19 + 1 = 22


def channel(**changes) -> LineRangeChannel:
    opts = load_ruleset("lines").options_for("line_range")
    return LineRangeChannel(attrs.evolve(opts, **{"context": 0, **changes}))


def envelope(*texts_by_call) -> Envelope:
    calls, paths = [], []
    for number, texts in enumerate(texts_by_call, 1):
        sections = []
        for text in texts:
            path = text.split("`", 2)[1]
            sections.append(Section(path, None, len(text), text))
            paths.append(path)
        calls.append(Call(number, tuple(sections), Origin("t", number)))
    return Envelope(tuple(calls), tuple(dict.fromkeys(paths)))


def test_shipped_lines_skip_header_fence_and_gap():
    assert [line.number for line in shipped_lines(A)] == [10, 11, 12, 20, 21, 22]
    assert [len(line.raw) for line in shipped_lines(A)] == [18, 30, 5, 18, 15, 5]


def test_single_line_and_context_window():
    env = envelope([A, B])
    assert channel().judge("see `lib/a.js:11`", env)["lib/a.js"].lines == {11}
    # context 1 widens to 10-12; 9 is not shipped, so it is not credited.
    assert channel(context=1).judge("see lib/a.js:10", env)["lib/a.js"].lines == {10, 11}
    found = channel(context=1).judge("see lib/a.js:11", env)
    assert found["lib/a.js"].lines == {10, 11, 12}
    assert found["lib/a.js"].evidence == "lib/a.js:11"
    assert not found["lib/b.js"].credited


def test_range_straddling_a_gap_credits_only_shipped_lines():
    found = channel().judge("the loop is in lib/a.js:11-21.", envelope([A]))["lib/a.js"]
    # 11, 12 before the gap, 20, 21 after it; 13-19 were never shipped.
    assert found.credited and found.lines == {11, 12, 20, 21}


def test_range_outside_what_was_shipped_credits_nothing():
    found = channel(context=3).judge("compare lib/a.js:40-50", envelope([A]))["lib/a.js"]
    assert not found.credited and found.lines is None
    assert "none of those lines was shipped" in found.reason
    # Inside the gap: 15 +- 3 is 12..18, and of those only 12 was shipped.
    assert channel(context=3).judge("lib/a.js:15", envelope([A]))["lib/a.js"].lines == {12}
    assert not channel(context=0).judge("lib/a.js:15", envelope([A]))["lib/a.js"].credited


def test_other_spellings():
    env = envelope([A, B])
    assert channel().judge("lines 20–22 of a.js", env)["lib/a.js"].lines == {20, 21, 22}
    assert channel().judge("line 2 in `lib/b.js`", env)["lib/b.js"].lines == {2}
    assert channel().judge("[here](lib/a.js#L10-L11)", env)["lib/a.js"].lines == {10, 11}
    assert channel().judge("a.js, lines 21 to 22", env)["lib/a.js"].lines == {21, 22}
    # Reversed range reads as the same range.
    assert channel().judge("a.js:12-10", env)["lib/a.js"].lines == {10, 11, 12}
    # A bare line number names no file.
    assert not channel().judge("(line 11)", env)["lib/a.js"].credited


def test_ambiguous_basename():
    one = "**`src/app.py`** — a(function)\n\n```python\n3\tx = 1\n```\n"
    two = "**`src/sansio/app.py`** — b(function)\n\n```python\n3\ty = 2\n```\n"
    env = envelope([one, two])
    both = channel().judge("app.py:3", env)
    assert both["src/app.py"].lines == {3} and both["src/sansio/app.py"].lines == {3}
    neither = channel(ambiguous="none").judge("app.py:3", env)
    assert not neither["src/app.py"].credited and not neither["src/sansio/app.py"].credited
    # A directory settles it.
    assert channel(ambiguous="none").judge("src/sansio/app.py:3", env)["src/sansio/app.py"].credited


def test_same_file_in_two_calls_is_credited_in_both():
    found = channel().judge("lib/a.js:11", envelope([A], [A]))["lib/a.js"]
    assert found.lines == {11}


def read_session(tmp_path, calls, answer, ruleset_yaml=None):
    path = session(tmp_path, calls, answer)
    rules = tmp_path / "rules.yaml"
    rules.write_text(ruleset_yaml or "extends: lines\nchannels:\n  line_range: {context: 0}\n")
    transcript = ClaudeStreamReader().read([str(path)])
    return score(transcript, load_ruleset(str(rules)))


def test_line_level_accounting_end_to_end(tmp_path):
    text = response(A, B)
    result = read_session(tmp_path, [text], "The work is at lib/a.js:11-21; lib/b.js only exports it.")
    # File level: both files cited by path, every char of both sections.
    assert result.used == len(A) + len(B) == result.envelope
    assert result.line_level
    # Line level: a.js is pinned to 11, 12, 20, 21 (30 + 5 + 18 + 15 = 68);
    # b.js is credited whole by path, so all its lines (15 + 22 = 37) count.
    assert result.line_pinned == 68
    assert result.line_used == 68 + 37
    assert result.calls[0].line_used == 105 and result.calls[0].line_pinned == 68
    assert {f.path: f.line_used for f in result.files} == {"lib/a.js": 68, "lib/b.js": 37}
    # The winning channel is still path (rank order); line_range only pins lines.
    assert {f.path: f.verdict.channel for f in result.files} == {"lib/a.js": "path", "lib/b.js": "path"}


def test_line_level_charges_every_return(tmp_path):
    result = read_session(tmp_path, [response(A), response(A)], "lib/a.js:10")
    assert result.line_used == 18 + 18  # line 10 in each of the two calls
    assert [c.line_used for c in result.calls] == [18, 18]


def test_uncredited_file_has_no_line_credit(tmp_path):
    result = read_session(tmp_path, [response(A, B)], "Nothing is cited: lib/c.js:1 is not returned.")
    assert result.used == 0 and result.line_used == 0 and result.line_pinned == 0


def test_text_and_json_show_line_level_and_ladder(tmp_path):
    result = read_session(tmp_path, [response(A, B)], "See lib/a.js:11-21 and lib/b.js.")
    env = result.envelope
    text = render_text(result)
    assert f"  line-level {105 / env * 100:5.1f}%  105 of {env:,} chars" in text
    assert "ladder (cumulative lower bounds): path 100.0% · +symbol 100.0% · +line_range 100.0% · +quote 100.0%" in text
    data = json.loads(json.dumps(session_dict(result)))
    assert data["line_level"]["used"] == 105 and data["line_level"]["pinned"] == 68
    assert data["calls"][0]["line_used"] == 105
    assert [step["channels"][-1] for step in data["ladder"]] == ["path", "symbol", "line_range", "quote"]


def test_default_ruleset_output_has_no_line_level(tmp_path):
    path = session(tmp_path, [response(A, B)], "See lib/a.js:11-21.")
    result = score(ClaudeStreamReader().read([str(path)]), load_ruleset("default"))
    assert not result.line_level
    assert "line-level" not in render_text(result) and "ladder" not in render_text(result)
    assert "line_level" not in session_dict(result)


def test_bad_pattern_is_a_ruleset_error(tmp_path):
    rules = tmp_path / "bad.yaml"
    rules.write_text("extends: lines\nchannels:\n  line_range:\n    path_first: '(?P<path>x)(?P<start>1)'\n")
    with pytest.raises(RulesetError, match="end"):
        load_ruleset(str(rules))


# Issue 20 item 3: numbers in text are read with a digit bound.
HUGE = "9" * 5000


@pytest.mark.parametrize("answer", [
    f"See lib/a.js:{HUGE}.",
    f"See lib/a.js:11-{HUGE}.",
    f"lines {HUGE} of lib/a.js",
    "See lib/a.js:1234567890123.",  # 13 digits: no line number
])
def test_a_digit_run_too_long_is_no_line_number(answer):
    assert channel().citations(answer) == []


def test_twelve_digits_are_still_a_line_number():
    assert [(c.start, c.end) for c in channel().citations("See lib/a.js:999999999999-11.")] == [(11, 999999999999)]


def test_a_five_thousand_digit_citation_scores_under_lines(tmp_path, capsys):
    from citeledger.cli import main

    path = session(tmp_path, [response(A, B)], f"The work is at lib/a.js:{HUGE} and lib/a.js:11.")
    assert main(["score", "--ruleset", "lines", "--json", str(path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) and "Traceback" not in err


def test_a_returned_source_line_numbered_with_five_thousand_digits_scores_under_lines(tmp_path, capsys):
    from citeledger.cli import main
    from citeledger.core import shipped_lines

    huge_line = f"**`lib/huge.js`** — run(function)\n```js\n{HUGE}\tconst x = 1;\n11\tconst y = 2;\n```\n"
    assert [line.number for line in shipped_lines(huge_line)] == [11]  # the long run numbers no line
    path = session(tmp_path, [response(A, huge_line)], "The work is at lib/huge.js:11 and lib/a.js:11.")
    assert main(["score", "--ruleset", "lines", "--json", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "lib/huge.js" in {f["path"] for f in json.loads(out)["files"]} and "Traceback" not in err
