"""line_cost charges exactly the shipped lines shipped_lines reads, in every unit."""

from hypothesis import given, settings, strategies as st

from citeledger.core import line_cost, shipped_lines, shipped_numbers
from citeledger.core.sections.units import MEASURES

# Numbered lines, near misses (no tab, too many digits, a letter), blank lines,
# non-ASCII and lone surrogates, with or without a final newline.
_LINE = st.one_of(
    st.builds(lambda n, code: f"{n}\t{code}", st.integers(0, 10**5), st.text(st.characters(blacklist_characters="\n"), max_size=8)),
    st.sampled_from(["", "12", "x\t1", "1234567890123456789012\tx", "\t", "7\t\u00e9\U0001f600", "8\t\ud800", "```"]),
)


def _by_records(text, lines, measure):
    return sum(measure(line.raw) for line in shipped_lines(text) if lines is None or line.number in lines)


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINE, max_size=12), st.booleans(), st.data())
def test_line_cost_is_the_sum_over_the_shipped_lines(lines, final_newline, data):
    text = "\n".join(lines) + ("\n" if final_newline else "")
    numbers = [line.number for line in shipped_lines(text)]
    picked = frozenset(data.draw(st.lists(st.sampled_from(numbers), max_size=4)) if numbers else [])
    for measure in MEASURES.values():
        for chosen in (None, picked, frozenset()):
            assert line_cost(text, chosen, measure) == _by_records(text, chosen, measure)


def test_the_last_line_has_no_newline_to_charge():
    assert line_cost("1\tab", None, len) == 4
    assert line_cost("1\tab\n", None, len) == 5
    # the same content earlier in the text is not the last line
    assert line_cost("1\tab\n1\tab\nx", None, len) == 10
    assert line_cost("1\tab\n2\tcd", frozenset({1}), len) == 5
    assert line_cost("1\tab\n2\tcd", frozenset({2}), len) == 4


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINE, max_size=12), st.booleans())
def test_shipped_numbers_are_the_shipped_lines_numbers(lines, final_newline):
    text = "\n".join(lines) + ("\n" if final_newline else "")
    assert shipped_numbers(text) == {line.number for line in shipped_lines(text)}
