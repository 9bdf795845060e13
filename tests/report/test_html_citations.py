"""Where the session page puts an answer's crediting citations (report/html/citations.py).

Spans are worked out by hand on short answers: index positions counted from 0.
"""

from citeledger.report.html.citations import Span, citation_spans, occurrences


def test_every_occurrence_of_a_path_is_a_citation():
    answer = "lib/a.js calls lib/a.js"
    assert occurrences(answer, "path", "lib/a.js") == [(0, 8), (15, 23)]


def test_no_word_character_may_touch_the_evidence():
    # utils.js inside myutils.js or utils.jsx is not that citation; after a "/" it is.
    answer = "myutils.js utils.jsx lib/utils.js"
    assert occurrences(answer, "path", "utils.js") == [(25, 33)]


def test_a_symbol_counts_in_backticks_when_it_stands_in_any():
    answer = "etag is computed by `etag(body)`"
    assert occurrences(answer, "symbol", "etag") == [(21, 25)]
    # In prose only (a ruleset reading prose symbols): found there.
    assert occurrences("the etag header", "symbol", "etag") == [(4, 8)]


def test_a_quote_matches_across_white_space_and_a_shortened_one_by_its_prefix():
    answer = "```\nif (a)   {\n  return b\n}\n```"
    assert occurrences(answer, "quote", "if (a) { return b }") == [(4, 27)]
    assert occurrences(answer, "quote", "if (a) { ret…") == [(4, 20)]


def test_overlapping_citations_merge_into_one_span_linking_every_file():
    # lib/utils.js credits file 0 by path; its last segment utils.js credits file 2.
    answer = "see lib/utils.js and `etag`"
    spans = citation_spans(answer, [(0, "path", "lib/utils.js"), (2, "path", "utils.js"), (1, "symbol", "etag")])
    assert spans == [Span(4, 16, (0, 2)), Span(22, 26, (1,))]


def test_evidence_not_in_the_answer_marks_nothing():
    assert citation_spans("nothing here", [(0, "path", "lib/x.js"), (1, "quote", "…")]) == []


# The rendered answer, read back by an HTML parser, is the answer: whatever it
# holds (markup, entities, quotes) and however its citations overlap.

from html.parser import HTMLParser  # noqa: E402

from hypothesis import given, strategies as st  # noqa: E402

from citeledger.report.html.session import answer_html  # noqa: E402


class _Text(HTMLParser):
    """Text of the <pre>, without the [n] markers of the links; and the links' targets."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.links, self._pre, self._sup = [], [], False, 0

    def handle_starttag(self, tag, attrs):
        self._pre |= tag == "pre"
        self._sup += tag == "sup"
        if tag == "a" and self._pre:
            self.links.append(dict(attrs)["href"])

    def handle_endtag(self, tag):
        self._sup -= tag == "sup"

    def handle_data(self, data):
        if self._pre and not self._sup:
            self.text.append(data)


PIECES = st.sampled_from(["lib/a.js", "a.js", "`etag`", "<script>", "&amp;", '"', "'", " ", "\n", "x", "é", "😀", "…"])


@given(st.lists(PIECES, max_size=30).map("".join),
       st.lists(st.tuples(st.sampled_from(["path", "symbol", "quote"]), PIECES), max_size=4))
def test_rendered_answer_reads_back_as_the_answer(answer, credits):
    files = [{"path": f"f{i}", "channel": ch, "evidence": ev} for i, (ch, ev) in enumerate(credits)]
    page = answer_html({"has_answer": True, "files": files}, answer)
    parsed = _Text()
    parsed.feed(page)
    assert "".join(parsed.text) == answer
    assert all(link.startswith("#file-") and 1 <= int(link[6:]) <= len(files) for link in parsed.links)
